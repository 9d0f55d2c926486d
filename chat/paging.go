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

// MaxUnixSeconds is the latest time a list filter takes: the end of the year 9999.
const MaxUnixSeconds int64 = 253402300799

// Range is an inclusive range of a list filter, as the hosted lists take them
// (createdAt[from], createdAt[to]): a nil end is open, and a Range with neither end filters
// nothing.
type Range struct{ From, To *int64 }

// Set reports whether r bounds anything.
func (r Range) Set() bool { return r.From != nil || r.To != nil }

// timeRange checks a range of UNIX seconds named name: each end from 0 to the year 9999, and
// from not after to. A range that could hold nothing is a mistake worth saying, as
// fromTimestamp after toTimestamp is: it is refused naming name[from], never answered
// empty.
func (f fieldErrors) timeRange(name string, r Range) {
	for _, end := range []struct {
		suffix string
		v      *int64
	}{{"[from]", r.From}, {"[to]", r.To}} {
		if end.v != nil && (*end.v < 0 || *end.v > MaxUnixSeconds) {
			f.add(name+end.suffix, "The "+name+end.suffix+" parameter must be a UNIX time in seconds, from 0 to 253402300799 (the year 9999).")
		}
	}
	if r.From != nil && r.To != nil && *r.From > *r.To {
		f.add(name+"[from]", "The "+name+"[from] parameter must not be after "+name+"[to].")
	}
}

// CountFilter compares a count (a group's members) with bounds, the hosted service's
// membersCount[gt|gte|lt|lte|eq]; nil bounds are not compared, and the others all hold.
type CountFilter struct{ GT, GTE, LT, LTE, EQ *int64 }

// Set reports whether c compares anything.
func (c CountFilter) Set() bool {
	return c.GT != nil || c.GTE != nil || c.LT != nil || c.LTE != nil || c.EQ != nil
}

// countFilter checks the bounds of c named name: counts are 0 or more, and name[gte] may not
// be above name[lte] (as a range's from may not be after its to).
func (f fieldErrors) countFilter(name string, c CountFilter) {
	for _, b := range []struct {
		op string
		v  *int64
	}{{"gt", c.GT}, {"gte", c.GTE}, {"lt", c.LT}, {"lte", c.LTE}, {"eq", c.EQ}} {
		if b.v != nil && *b.v < 0 {
			f.add(name+"["+b.op+"]", "The "+name+"["+b.op+"] parameter must be a whole number, 0 or more.")
		}
	}
	if c.GTE != nil && c.LTE != nil && *c.GTE > *c.LTE {
		f.add(name+"[gte]", "The "+name+"[gte] parameter must not be above "+name+"[lte].")
	}
}
