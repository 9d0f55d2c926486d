package sqlstore

import "sync"

// memberPages remembers where the member pages this process served ended, each under the
// group's membership version of the time (migration 0028), so that the next page can start
// there (DB.ListMembers). An end is used only while its version stands: any change to the
// group's member rows moves the version, and a stale end is never looked at again.
type memberPages struct {
	mu sync.Mutex
	m  map[memberPage]memberPageEnd
}

// memberPage is one page of a group's unfiltered member list.
type memberPage struct {
	appID, guid     string
	perPage, number int
}

// memberPageEnd is a page's last member in the list's order (joined_at, uid).
type memberPageEnd struct {
	version  int64
	joinedAt int64
	uid      string
}

// maxMemberPages bounds the ends kept (about 100 bytes each); past it they are all
// forgotten, and the pages after them walk their offsets until walked again.
const maxMemberPages = 1 << 16

// get is p's end if it was remembered under version.
func (p *memberPages) get(k memberPage, version int64) (memberPageEnd, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.m[k]
	return e, ok && e.version == version
}

func (p *memberPages) put(k memberPage, e memberPageEnd) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil || len(p.m) >= maxMemberPages {
		p.m = make(map[memberPage]memberPageEnd)
	}
	p.m[k] = e
}
