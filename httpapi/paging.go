package httpapi

import "github.com/natter-chat/natter/chat"

// The two paging shapes of the hosted service: page-based lists carry meta.pagination,
// cursor-based ones meta.current and meta.next.

// pagination is meta.pagination of page-based lists.
type pagination struct {
	Total       int `json:"total"`
	Count       int `json:"count"`
	PerPage     int `json:"per_page"`
	CurrentPage int `json:"current_page"`
	TotalPages  int `json:"total_pages"`
}

func pageMeta(p chat.Page, count, total int) any {
	return map[string]pagination{"pagination": pageOf(p, count, total)}
}

func pageOf(p chat.Page, count, total int) pagination {
	pages := (total + p.PerPage - 1) / p.PerPage
	return pagination{Total: total, Count: count, PerPage: p.PerPage, CurrentPage: p.Number, TotalPages: pages}
}

// cursorMeta is a cursor-based list's meta.
type cursorMeta struct {
	Current struct {
		Limit int `json:"limit"`
		Count int `json:"count"`
	} `json:"current"`
	Next *cursorJSON `json:"next"`
}

type cursorJSON struct {
	Affix string `json:"affix"`
	ID    string `json:"id"`
}
