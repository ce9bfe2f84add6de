package impl

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// countWords are the sentences the plugin states a bytes field's
// buf.validate byte counts in.
var countWords = regexp.MustCompile(`Must be (?:exactly (\d+)|(\d+) to (\d+)|at least (\d+)|at most (\d+)) bytes \(base64\)\.`)

// TestBase64CountPatternsAreWhatTheRulesTake holds the pattern the plugin
// advertises for a bytes field with length rules (the committed golden
// output of buf_validate_values) to the decoder and the byte counts its
// description states: a string matches exactly when the decoder takes it
// and it decodes to a count within them.
func TestBase64CountPatternsAreWhatTheRulesTake(t *testing.T) {
	raw, err := os.ReadFile("../../../golden/testdata/buf_validate_values/want/devices/v1/devicesv1mcpwrite/devices.mcpwrite.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Services []struct {
			Tools []struct {
				InputSchema struct {
					Properties map[string]struct {
						Description string
						Pattern     string
						Items       *struct{ Pattern string }
					}
				} `json:"input_schema"`
			}
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	// Every string of up to 6 characters over both alphabets and the
	// padding, and runs of "Q" up to 18 long with such an ending of up to 3.
	var samples []string
	var walk func(s string, n int)
	walk = func(s string, n int) {
		samples = append(samples, s)
		if n == 0 {
			return
		}
		for _, c := range "Q+_=" {
			walk(s+string(c), n-1)
		}
	}
	walk("", 6)
	var ends []string
	walk = func(s string, n int) {
		ends = append(ends, s)
		if n > 0 {
			for _, c := range "Q+_=" {
				walk(s+string(c), n-1)
			}
		}
	}
	walk("", 3)
	for n := 7; n <= 18; n++ {
		for _, e := range ends {
			samples = append(samples, strings.Repeat("Q", n)+e)
		}
	}
	fields := 0
	for _, tool := range doc.Services[0].Tools {
		for name, p := range tool.InputSchema.Properties {
			m := countWords.FindStringSubmatch(p.Description)
			if m == nil {
				continue
			}
			fields++
			pattern := p.Pattern
			if p.Items != nil {
				pattern = p.Items.Pattern
			}
			lo, hi := countBounds(m)
			re := regexp.MustCompile(pattern)
			for _, s := range samples {
				b, ok := NewDecoder(Limits{}).Bytes(&Value{Kind: KindString, Str: s}, "b")
				want := ok && len(b) >= lo && (hi < 0 || len(b) <= hi)
				if re.MatchString(s) != want {
					t.Errorf("%s (%s): %q: pattern matches %v; decoder takes it %v, %d bytes", name, m[0], s, re.MatchString(s), ok, len(b))
				}
			}
		}
	}
	if fields != 4 {
		t.Errorf("%d bytes fields state counts, want 4 (fingerprint, thumbnail, tag, keys)", fields)
	}
}

// countBounds reads the counts of a countWords match (hi -1: none).
func countBounds(m []string) (lo, hi int) {
	n := func(s string) int { x, _ := strconv.Atoi(s); return x }
	switch {
	case m[1] != "":
		return n(m[1]), n(m[1])
	case m[2] != "":
		return n(m[2]), n(m[3])
	case m[4] != "":
		return n(m[4]), -1
	}
	return 0, n(m[5])
}
