package impl

// This file is the contract between generated decode code and the strict
// decoder. Implementation lives in json_parser.go and decoder.go.

// Kind is the JSON type of a Value.
type Kind uint8

// JSON kinds.
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

// Value is one parsed JSON value. Numbers keep their literal text so that
// no precision is lost before the target type is known.
type Value struct {
	Kind Kind
	Str  string   // string contents (KindString) or number literal (KindNumber)
	Bool bool     // KindBool
	Arr  []*Value // KindArray
	Obj  *Object  // KindObject
}

// Object is a JSON object with its keys in input order. Keys are unique:
// the parser reports duplicates as errors.
type Object struct {
	Keys []string
	Vals []*Value
}

// Limits bound what the strict decoder accepts. Zero fields take defaults.
type Limits struct {
	MaxBytes       int // whole payload; default 1 MiB
	MaxDepth       int // nesting of objects and arrays; default 32
	MaxStringBytes int // one string; default 64 KiB
	MaxArrayLen    int // one array; default 1000
	MaxObjectKeys  int // one object; default 1000
}

// WithDefaults returns l with every zero or negative field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxStringBytes <= 0 {
		l.MaxStringBytes = DefaultMaxStringBytes
	}
	if l.MaxArrayLen <= 0 {
		l.MaxArrayLen = DefaultMaxArrayLen
	}
	if l.MaxObjectKeys <= 0 {
		l.MaxObjectKeys = DefaultMaxObjectKeys
	}
	return l
}

// Default limits of the strict decoder; a zero Limits field takes these.
const (
	DefaultMaxBytes       = 1 << 20  // whole payload: 1 MiB
	DefaultMaxDepth       = 32       // nesting of objects and arrays
	DefaultMaxStringBytes = 64 << 10 // one decoded string or key: 64 KiB
	DefaultMaxArrayLen    = 1000     // elements of one array
	DefaultMaxObjectKeys  = 1000     // keys of one object
)
