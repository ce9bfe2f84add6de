package archimate_test

import (
	"os/exec"
	"strings"
	"testing"
)

// archimate-server reads its secrets by one rule (runtime/secret): white
// space, short and patterned values are refused with the reason, wherever
// they come from, and -postgres and -stateless refuse to start without
// shared secrets.
func TestServerRefusesWeakOrMissingSharedSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary")
	}
	bin := serverBinary(t)
	const good = "3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b"
	fix := func(flag, env string) string {
		return "write at least 32 random bytes (e.g. `openssl rand -hex 32`) to a file and pass " + flag + " <file>, or set " + env
	}
	idFix, keyFix := fix("-id-secret-file", "MCPWRITE_ID_SECRET"), fix("-signing-key-file", "MCPWRITE_SIGNING_KEY")
	cases := []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"white-space id secret", []string{"MCPWRITE_ID_SECRET=    "}, nil, "ID secret from MCPWRITE_ID_SECRET refused: it is only white space; " + idFix},
		{"white-space id secret with -postgres", []string{"MCPWRITE_ID_SECRET= \t "}, []string{"-postgres", "postgres://127.0.0.1:1/none"}, "ID secret from MCPWRITE_ID_SECRET refused: it is only white space; " + idFix},
		{"one repeated character", []string{"MCPWRITE_ID_SECRET=" + strings.Repeat("k", 32)}, nil, "ID secret from MCPWRITE_ID_SECRET refused: it has only 1 distinct byte values, want at least 8: it is not random; " + idFix},
		{"patterned signing key", []string{"MCPWRITE_SIGNING_KEY=" + strings.Repeat("abcdefgh", 4)}, nil, "signing key from MCPWRITE_SIGNING_KEY refused: it repeats a 8-byte pattern: it is not random; " + keyFix},
		{"short signing key", []string{"MCPWRITE_SIGNING_KEY=short-key"}, nil, "signing key from MCPWRITE_SIGNING_KEY refused: it has 9 bytes, want at least 32; " + keyFix},
		{"stateless without secrets", nil, []string{"-stateless", "-http", "127.0.0.1:1", "-postgres", "postgres://127.0.0.1:1/none"},
			"ID secret: secret not given (-stateless: any instance serves any request, so every instance needs the same secrets): " + idFix},
		{"stateless without the signing key", []string{"MCPWRITE_ID_SECRET=" + good}, []string{"-stateless", "-http", "127.0.0.1:1", "-postgres", "postgres://127.0.0.1:1/none"},
			"signing key: secret not given (-stateless: any instance serves any request, so every instance needs the same secrets): " + keyFix},
		{"stateless without -postgres", nil, []string{"-stateless", "-http", "127.0.0.1:1"}, "-stateless serves HTTP from several instances sharing their stores: set -http and -postgres too"},
		{"-postgres without secrets", nil, []string{"-postgres", "postgres://127.0.0.1:1/none"},
			"ID secret: secret not given (-postgres: instances and restarts share the stores, so every process needs the same secrets): " + idFix},
		{"-postgres without the signing key", []string{"MCPWRITE_ID_SECRET=" + good}, []string{"-postgres", "postgres://127.0.0.1:1/none"},
			"signing key: secret not given (-postgres: instances and restarts share the stores, so every process needs the same secrets): " + keyFix},
	}
	for _, c := range cases {
		cmd := exec.Command(bin, c.args...)
		cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, c.env...)
		out, err := cmd.CombinedOutput()
		if _, exited := err.(*exec.ExitError); !exited || !strings.HasSuffix(string(out), c.want+"\n") {
			t.Errorf("%s: %v, output %q; want an exit with ...%q", c.name, err, out, c.want)
		}
	}
}
