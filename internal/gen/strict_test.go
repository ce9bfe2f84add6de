package gen_test

import (
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
)

func TestToOpenAIStrict(t *testing.T) {
	cases := []struct{ name, in, want, err string }{
		{"required stay, optional become nullable",
			`{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"string","enum":["x"]}},"required":["a"]}`,
			`{"additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"enum":["x",null],"type":["string","null"]}},"required":["a","b"],"type":"object"}`, ""},
		{"nested entries", `{"type":"object","additionalProperties":false,"properties":{"m":{"type":"array","items":{"type":"object","additionalProperties":false,"properties":{"key":{"type":"string"},"value":{"type":"string"}},"required":["key","value"]}}}}`,
			`{"additionalProperties":false,"properties":{"m":{"items":{"additionalProperties":false,"properties":{"key":{"type":"string"},"value":{"type":"string"}},"required":["key","value"],"type":"object"},"type":["array","null"]}},"required":["m"],"type":"object"}`, ""},
		{"open object", `{"type":"object","additionalProperties":false,"properties":{"o":{"type":"object"}}}`, "", "o: cannot convert an open JSON schema object to strict mode"},
		{"map", `{"type":"object","additionalProperties":false,"properties":{"o":{"type":"object","additionalProperties":{"type":"string"}}}}`, "", "o: cannot convert a map (additionalProperties with a schema) to strict mode"},
		{"typeless", `{"type":"object","additionalProperties":false,"properties":{"v":{}}}`, "", "v: cannot convert an open JSON schema (no single type) to strict mode"},
		{"unsupported keyword", `{"type":"object","additionalProperties":false,"properties":{"b":{"type":"string","contentEncoding":"base64"}}}`, "", "b: keyword contentEncoding is not supported in strict mode"},
		{"unsupported combinator", `{"type":"object","additionalProperties":false,"properties":{"v":{"oneOf":[{"type":"string"}]}}}`, "", "v: keyword oneOf is not supported in strict mode"},
		{"boolean", `{"type":"object","additionalProperties":false,"properties":{"v":true}}`, "", "v: cannot convert a boolean schema to strict mode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := gen.ToOpenAIStrict([]byte(tc.in))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %s, %v\nwant %s", got, err, tc.want)
			}
		})
	}
}
