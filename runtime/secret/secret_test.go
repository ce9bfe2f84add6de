package secret

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// good is a secret that passes every rule: 64 hex digits of random bytes.
const good = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func TestCheck(t *testing.T) {
	cases := map[string]string{
		good:                                    "",
		"  " + good + "\n":                      "",
		"":                                      "it has 0 bytes, want at least 32",
		"   \t\n  ":                             "it is only white space",
		strings.Repeat(" ", 40):                 "it is only white space",
		"0123456789abcdefghijklmnopqrstu":       "it has 31 bytes, want at least 32",
		strings.Repeat("a", 32):                 "it has only 1 distinct byte values, want at least 8: it is not random",
		strings.Repeat("ab", 40):                "it has only 2 distinct byte values, want at least 8: it is not random",
		strings.Repeat("abcdefgh", 4):           "it repeats a 8-byte pattern: it is not random",
		"0123456789abcdef0123456789abcdef":      "it repeats a 16-byte pattern: it is not random",
		strings.Repeat("abcdefghij", 5) + "abc": "it repeats a 10-byte pattern: it is not random",
		"abcdefgh" + strings.Repeat("x", 24):    "",
	}
	for in, want := range cases {
		got := ""
		if err := Check(in); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("Check(%q) = %q, want %q", in, got, want)
		}
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	const fix = "write at least 32 random bytes (e.g. `openssl rand -hex 32`) to a file and pass -k-file <file>, or set K"
	spec := func(file, required string) Spec {
		return Spec{Name: "test key", FileFlag: "-k-file", File: file, Env: "K", Required: required, Fallback: "a random key is used"}
	}
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == "K" {
				return v
			}
			return ""
		}
	}
	goodFile, spaceFile, shortFile := writeFile(t, good+"\n"), writeFile(t, " \n\t \n"), writeFile(t, "short\n")
	cases := []struct {
		name, file, env, required string
		want, notice, err         string
	}{
		{name: "from a file, final newline removed", file: goodFile, want: good},
		{name: "from the environment", env: " " + good + " ", want: good},
		{name: "missing: notice with the fix", notice: "test key not set: a random key is used; to share one, " + fix},
		{name: "missing where required", required: "-stateless", err: "test key: secret not given (-stateless): " + fix},
		{name: "both set", file: goodFile, env: good, err: "test key: both -k-file and K are set; set one"},
		{name: "white space in the environment", env: "   ", err: "test key from K refused: it is only white space; " + fix},
		{name: "white space in a file", file: spaceFile, err: "test key from -k-file " + spaceFile + " refused: it is only white space; " + fix},
		{name: "short file", file: shortFile, err: "test key from -k-file " + shortFile + " refused: it has 5 bytes, want at least 32; " + fix},
		{name: "one repeated character", env: strings.Repeat("x", 32), err: "test key from K refused: it has only 1 distinct byte values, want at least 8: it is not random; " + fix},
		{name: "repeating pattern", env: strings.Repeat("abcdefgh", 8), err: "test key from K refused: it repeats a 8-byte pattern: it is not random; " + fix},
		{name: "unreadable file", file: "/nonexistent/secret", err: "test key: -k-file: open /nonexistent/secret: no such file or directory"},
	}
	for _, c := range cases {
		v, notice, err := Load(spec(c.file, c.required), env(c.env))
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if string(v) != c.want || notice != c.notice || gotErr != c.err {
			t.Errorf("%s: Load = %q, notice %q, err %q; want %q, %q, %q", c.name, v, notice, gotErr, c.want, c.notice, c.err)
		}
		if c.required != "" && !errors.Is(err, ErrMissing) {
			t.Errorf("%s: error does not wrap ErrMissing", c.name)
		}
	}
}

func TestFlagsRuntimeOption(t *testing.T) {
	var notices []string
	f := &Flags{}
	if _, err := f.RuntimeOption(func(string) string { return "" }, "", func(n string) { notices = append(notices, n) }); err != nil {
		t.Fatal(err)
	}
	if len(notices) != 2 || !strings.HasPrefix(notices[0], "ID secret not set: ") || !strings.HasPrefix(notices[1], "signing key not set: ") {
		t.Fatalf("notices %q", notices)
	}
	_, err := f.RuntimeOption(func(string) string { return "" }, "-stateless: requests of one client reach any instance", nil)
	if want := "ID secret: secret not given (-stateless: requests of one client reach any instance): write at least 32 random bytes (e.g. `openssl rand -hex 32`) to a file and pass -id-secret-file <file>, or set MCPWRITE_ID_SECRET"; err == nil || err.Error() != want {
		t.Fatalf("required: %v, want %q", err, want)
	}
	f.IDSecretFile = writeFile(t, good)
	_, err = f.RuntimeOption(func(string) string { return "" }, "-stateless", nil)
	if want := "signing key: secret not given (-stateless): write at least 32 random bytes (e.g. `openssl rand -hex 32`) to a file and pass -signing-key-file <file>, or set MCPWRITE_SIGNING_KEY"; err == nil || err.Error() != want {
		t.Fatalf("required signing key: %v, want %q", err, want)
	}
}
