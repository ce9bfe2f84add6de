package impl

import (
	"fmt"
)

func (p *jsonParser) parseValue(depth int) *Value {
	if p.pos >= len(p.raw) {
		p.eof(depth-1, "where a value was expected")
		return nil
	}
	switch c := p.raw[p.pos]; {
	case c == '{':
		return p.parseObject(depth)
	case c == '[':
		return p.parseArray(depth)
	case c == '"':
		s, ok := p.parseString(depth, "string")
		if !ok {
			return nil
		}
		v := p.newValue(KindString)
		if v != nil {
			v.Str = s
		}
		return v
	case c == '-' || isDigit(c):
		return p.parseNumber(depth)
	case isLetter(c):
		return p.parseLiteral(depth)
	case c == '\'':
		p.fail(p.pos, depth-1, "strings must be in double quotes, found '\\''")
	default:
		p.fail(p.pos, depth-1, "expected a value, found "+describeByte(p.raw, p.pos))
	}
	return nil
}

func (p *jsonParser) parseObject(depth int) *Value {
	start := p.pos
	if depth > p.lim.MaxDepth {
		p.tooDeep(start, depth)
		return nil
	}
	p.pos++
	var local [8]jsonMember
	ms := local[:0]
	var index map[string]struct{}
	n := 0 // members, including those with a bad key
	p.skipSpace()
	if p.pos < len(p.raw) && p.raw[p.pos] == '}' {
		p.pos++
		return p.newObject(nil)
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.raw) {
			p.eof(depth-1, "in object")
			return nil
		}
		if c := p.raw[p.pos]; c != '"' {
			if c == '}' && n > 0 {
				p.syntax(p.pos, depth-1, "trailing comma before '}'")
				p.pos++
				break
			}
			p.fail(p.pos, depth-1, "expected a double-quoted object key, found "+describeByte(p.raw, p.pos))
			return nil
		}
		keyOff := p.pos
		key, keyOK := p.parseString(depth, "object key")
		if p.fatal {
			return nil
		}
		p.skipSpace()
		if p.pos >= len(p.raw) {
			p.eof(depth-1, "in object")
			return nil
		}
		if p.raw[p.pos] != ':' {
			p.fail(p.pos, depth-1, "expected ':' after object key, found "+describeByte(p.raw, p.pos))
			return nil
		}
		p.pos++
		p.skipSpace()
		p.setSeg(depth-1, pathSeg{key: key})
		if keyOK && hasMember(ms, index, key) {
			p.report(keyOff, CodeValidation, fmt.Sprintf("duplicate key %q", key), depth)
		}
		v := p.parseValue(depth + 1)
		if p.fatal {
			return nil
		}
		if n++; n > p.lim.MaxObjectKeys {
			p.build = false // reported below; keep no more
		}
		if keyOK {
			ms, index = addMember(ms, index, key, v)
		}
		p.skipSpace()
		if p.pos >= len(p.raw) {
			p.eof(depth-1, "in object")
			return nil
		}
		c := p.raw[p.pos]
		p.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			p.fail(p.pos-1, depth-1, "expected ',' or '}' after object member, found "+describeByte(p.raw, p.pos-1))
			return nil
		}
	}
	if n > p.lim.MaxObjectKeys {
		p.limitReport(start, depth-1, fmt.Sprintf("object has %d keys; the limit is %d", n, p.lim.MaxObjectKeys), p.lim.MaxObjectKeys, tooManyHint)
	}
	return p.newObject(ms)
}

// hasMember reports whether the members ms of an object being parsed hold
// key; index holds their keys once there are more than 16 of them.
func hasMember(ms []jsonMember, index map[string]struct{}, key string) bool {
	if index != nil {
		_, dup := index[key]
		return dup
	}
	for i := range ms {
		if ms[i].key == key {
			return true
		}
	}
	return false
}

// addMember appends a member, and indexes the keys once there are more
// than 16, so a large object's duplicate check stays linear.
func addMember(ms []jsonMember, index map[string]struct{}, key string, v *Value) ([]jsonMember, map[string]struct{}) {
	ms = append(ms, jsonMember{key: key, val: v})
	if index != nil {
		index[key] = struct{}{}
	} else if len(ms) > 16 {
		index = make(map[string]struct{}, 2*len(ms))
		for _, m := range ms {
			index[m.key] = struct{}{}
		}
	}
	return ms, index
}

func (p *jsonParser) parseArray(depth int) *Value {
	start := p.pos
	if depth > p.lim.MaxDepth {
		p.tooDeep(start, depth)
		return nil
	}
	p.pos++
	var local [8]*Value
	elems := local[:0]
	n := 0
	p.skipSpace()
	if p.pos < len(p.raw) && p.raw[p.pos] == ']' {
		p.pos++
		return p.newValue(KindArray)
	}
	for {
		p.skipSpace()
		if p.pos < len(p.raw) && p.raw[p.pos] == ']' && n > 0 {
			p.syntax(p.pos, depth-1, "trailing comma before ']'")
			p.pos++
			break
		}
		p.setSeg(depth-1, pathSeg{idx: n, isIdx: true})
		v := p.parseValue(depth + 1)
		if p.fatal {
			return nil
		}
		if n++; n > p.lim.MaxArrayLen {
			p.build = false // reported below; keep no more
		}
		if p.build {
			elems = append(elems, v)
		}
		p.skipSpace()
		if p.pos >= len(p.raw) {
			p.eof(depth-1, "in array")
			return nil
		}
		c := p.raw[p.pos]
		p.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			p.fail(p.pos-1, depth-1, "expected ',' or ']' after array element, found "+describeByte(p.raw, p.pos-1))
			return nil
		}
	}
	if n > p.lim.MaxArrayLen {
		p.limitReport(start, depth-1, fmt.Sprintf("array has %d elements; the limit is %d", n, p.lim.MaxArrayLen), p.lim.MaxArrayLen, tooManyHint)
	}
	v := p.newValue(KindArray)
	if v != nil {
		v.Arr = p.takePtrs(len(elems))
		copy(v.Arr, elems)
	}
	return v
}
