package runtime

// Bottom layer: what the observer reads from a result's structuredContent
// (the error's code and trace_id, a replay, a proposal), read by one pass
// over the top-level object without decoding the answer.

import "encoding/json"

// resultFacts is what callEnd needs from a result's structuredContent.
type resultFacts struct {
	code, traceID string
	replay        bool
	proposal      bool // a proposal member that is not null
}

// readResultFacts reads the top-level members "error" (its "code" and
// "trace_id" strings), "idempotent_replay" and "proposal" of raw, which
// the runtime wrote: keys compare exactly, a later duplicate wins, and raw
// that is not one JSON object gives no facts.
func readResultFacts(raw []byte) resultFacts {
	var f resultFacts
	s := factScanner{b: raw}
	ok := s.object(func(key []byte, start int) bool {
		switch string(key) {
		case "error":
			// As a decode into a pointer: null clears it, an object
			// decodes over what an earlier "error" left.
			if s.peek() != '{' {
				if !s.skip() {
					return false
				}
				if string(raw[start:s.i]) == "null" {
					f.code, f.traceID = "", ""
				}
				return true
			}
			return s.object(func(k []byte, _ int) bool {
				switch string(k) {
				case "code":
					return s.str(&f.code)
				case "trace_id":
					return s.str(&f.traceID)
				}
				return s.skip()
			})
		case "idempotent_replay":
			if !s.skip() {
				return false
			}
			// As a decode into a bool: another type leaves it as it was.
			switch string(raw[start:s.i]) {
			case "true":
				f.replay = true
			case "false":
				f.replay = false
			}
		case "proposal":
			if !s.skip() {
				return false
			}
			f.proposal = string(raw[start:s.i]) != "null"
		default:
			return s.skip()
		}
		return true
	})
	s.space()
	if !ok || s.i != len(raw) {
		return resultFacts{}
	}
	return f
}

// factScanner walks JSON text; each method reports false on text that is
// not JSON.
type factScanner struct {
	b []byte
	i int
}

func (s *factScanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

func (s *factScanner) peek() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object reads an object, calling member with each raw key (between its
// quotes) and the offset where its value starts; member reads the value.
func (s *factScanner) object(member func(key []byte, start int) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		ks := s.i + 1
		if !s.skipString() {
			return false
		}
		key := s.b[ks : s.i-1]
		if s.peek() != ':' {
			return false
		}
		s.i++
		if !member(key, s.valueStart()) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *factScanner) valueStart() int {
	s.space()
	return s.i
}

// str reads a value into *v when it is a string (one with escapes is
// decoded); as a decode into a string, another type leaves *v as it was.
func (s *factScanner) str(v *string) bool {
	if s.peek() != '"' {
		return s.skip()
	}
	start := s.i
	if !s.skipString() {
		return false
	}
	body := s.b[start+1 : s.i-1]
	for _, c := range body {
		if c == '\\' {
			u, ok := unquoteJSON(s.b[start:s.i])
			*v = u
			return ok
		}
	}
	*v = string(body)
	return true
}

// skipString steps over the string at s.i (its opening quote).
func (s *factScanner) skipString() bool {
	for s.i++; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '\\':
			s.i++
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		}
	}
	return false
}

// skip steps over one value.
func (s *factScanner) skip() bool {
	switch c := s.peek(); c {
	case '"':
		return s.skipString()
	case '{':
		return s.object(func([]byte, int) bool { return s.skip() })
	case '[':
		s.i++
		if s.peek() == ']' {
			s.i++
			return true
		}
		for {
			if !s.skip() {
				return false
			}
			switch s.peek() {
			case ',':
				s.i++
			case ']':
				s.i++
				return true
			default:
				return false
			}
		}
	case 0:
		return false
	default:
		start := s.i
		for s.i < len(s.b) && !isFactDelimiter(s.b[s.i]) {
			s.i++
		}
		return validScalar(s.b[start:s.i])
	}
}

func isFactDelimiter(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// validScalar reports whether b is true, false, null or a JSON number.
func validScalar(b []byte) bool {
	switch string(b) {
	case "true", "false", "null":
		return true
	}
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i == len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i == len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i == len(b)
}

// unquoteJSON decodes a JSON string with escapes.
func unquoteJSON(quoted []byte) (string, bool) {
	var v string
	if err := json.Unmarshal(quoted, &v); err != nil {
		return "", false
	}
	return v, true
}
