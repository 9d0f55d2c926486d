package modmatch

// automaton is an Aho-Corasick automaton over bytes: a trie of the patterns with failure
// links, stored compactly (each node's edges sorted in one array). One pass over a text finds
// every occurrence of every pattern, in time linear in the text plus the occurrences.
type automaton struct {
	root      [256]int32 // the root's transitions, dense (0: stay at the root)
	edgeStart []int32    // node i's edges are edgeByte/edgeTo[edgeStart[i]:edgeStart[i+1]]
	edgeByte  []byte
	edgeTo    []int32
	fail      []int32 // longest proper suffix that is a trie node
	out       []int32 // the pattern ending at this node, or -1
	dict      []int32 // the nearest node on the fail chain with a pattern, or -1
	patLen    []int32 // per pattern, its length in bytes
}

// acBuilder builds the trie with sibling lists, then compacts it.
type acBuilder struct {
	firstChild, nextSibling []int32
	label                   []byte
	out                     []int32
	patLen                  []int32
}

func newACBuilder() *acBuilder {
	b := &acBuilder{}
	b.newNode(0)
	return b
}

func (b *acBuilder) newNode(c byte) int32 {
	b.firstChild = append(b.firstChild, -1)
	b.nextSibling = append(b.nextSibling, -1)
	b.label = append(b.label, c)
	b.out = append(b.out, -1)
	return int32(len(b.label) - 1)
}

// add inserts p (non-empty) and returns its pattern id; adding the same bytes twice returns
// the same id.
func (b *acBuilder) add(p []byte) int32 {
	s := int32(0)
	for _, c := range p {
		t := b.firstChild[s]
		for t >= 0 && b.label[t] != c {
			t = b.nextSibling[t]
		}
		if t < 0 {
			t = b.newNode(c)
			b.nextSibling[t] = b.firstChild[s]
			b.firstChild[s] = t
		}
		s = t
	}
	if b.out[s] < 0 {
		b.out[s] = int32(len(b.patLen))
		b.patLen = append(b.patLen, int32(len(p)))
	}
	return b.out[s]
}

func (b *acBuilder) build() *automaton {
	n := len(b.label)
	a := &automaton{
		edgeStart: make([]int32, n+1),
		edgeByte:  make([]byte, 0, n-1),
		edgeTo:    make([]int32, 0, n-1),
		fail:      make([]int32, n),
		out:       b.out,
		dict:      make([]int32, n),
		patLen:    b.patLen,
	}
	var kids []int32
	for s := range n {
		a.edgeStart[s] = int32(len(a.edgeTo))
		kids = kids[:0]
		for t := b.firstChild[s]; t >= 0; t = b.nextSibling[t] {
			kids = append(kids, t)
		}
		for i := 1; i < len(kids); i++ { // insertion sort: few children, mostly
			for j := i; j > 0 && b.label[kids[j]] < b.label[kids[j-1]]; j-- {
				kids[j], kids[j-1] = kids[j-1], kids[j]
			}
		}
		for _, t := range kids {
			a.edgeByte = append(a.edgeByte, b.label[t])
			a.edgeTo = append(a.edgeTo, t)
		}
	}
	a.edgeStart[n] = int32(len(a.edgeTo))
	for i := a.edgeStart[0]; i < a.edgeStart[1]; i++ {
		a.root[a.edgeByte[i]] = a.edgeTo[i]
	}

	// Breadth first, so a node's fail target (shallower) is done before the node.
	a.dict[0] = -1
	queue := make([]int32, 0, n)
	for i := a.edgeStart[0]; i < a.edgeStart[1]; i++ {
		v := a.edgeTo[i]
		a.fail[v], a.dict[v] = 0, -1
		queue = append(queue, v)
	}
	for qi := 0; qi < len(queue); qi++ {
		u := queue[qi]
		for i := a.edgeStart[u]; i < a.edgeStart[u+1]; i++ {
			c, v := a.edgeByte[i], a.edgeTo[i]
			f := a.fail[u]
			for f != 0 && a.child(f, c) < 0 {
				f = a.fail[f]
			}
			if t := a.next0(f, c); t >= 0 {
				a.fail[v] = t
			}
			g := a.fail[v]
			if a.out[g] >= 0 {
				a.dict[v] = g
			} else {
				a.dict[v] = a.dict[g]
			}
			queue = append(queue, v)
		}
	}
	return a
}

// next0 is child for any node including the root, -1 for none.
func (a *automaton) next0(s int32, c byte) int32 {
	if s == 0 {
		if t := a.root[c]; t != 0 {
			return t
		}
		return -1
	}
	return a.child(s, c)
}

// child is the trie edge from s (not the root) labelled c, or -1.
func (a *automaton) child(s int32, c byte) int32 {
	lo, hi := a.edgeStart[s], a.edgeStart[s+1]
	if hi-lo <= 8 {
		for i := lo; i < hi; i++ {
			if a.edgeByte[i] == c {
				return a.edgeTo[i]
			}
		}
		return -1
	}
	for lo < hi {
		m := int32(uint32(lo+hi) >> 1)
		switch b := a.edgeByte[m]; {
		case b == c:
			return a.edgeTo[m]
		case b < c:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}

// scan calls hit(pattern, end) for every occurrence of a pattern in text, end being the
// index just past it, in order of end. hit returns false to stop the scan.
func (a *automaton) scan(text []byte, hit func(pat int32, end int) bool) {
	s := int32(0)
	for i, c := range text {
		for {
			if s == 0 {
				s = a.root[c]
				break
			}
			if t := a.child(s, c); t >= 0 {
				s = t
				break
			}
			s = a.fail[s]
		}
		o := s
		if a.out[o] < 0 {
			o = a.dict[o]
		}
		for ; o >= 0; o = a.dict[o] {
			if !hit(a.out[o], i+1) {
				return
			}
		}
	}
}
