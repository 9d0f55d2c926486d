package chat

// Page sizes of page-based lists.
const (
	MaxPerPage     = 1000
	DefaultPerPage = 100
)

// Page is a page-based window: 1-based page number and page size.
type Page struct {
	Number  int
	PerPage int
}

// Offset of the page's first row.
func (p Page) Offset() int { return (p.Number - 1) * p.PerPage }
