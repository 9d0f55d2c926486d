package httpapi

// NotYetPatterns are the patterns of the endpoints not served yet ("[METHOD ]/path"), for the
// external tests.
var NotYetPatterns = func() []string {
	var out []string
	for _, r := range (&Server{}).endpoints() {
		if r.notYet {
			out = append(out, r.pattern(""))
		}
	}
	return out
}()

// TakeUploadSlot takes one of s's upload slots, as a request receiving files does, so that a
// test fills them without racing a real upload's timing; release gives it back.
func (s *Server) TakeUploadSlot() (release func(), ok bool) {
	select {
	case s.uploads <- struct{}{}:
		return func() { <-s.uploads }, true
	default:
		return nil, false
	}
}
