package runtime

import "testing"

// Addresses, DSNs and credentials leave a backend's message; what the
// domain wrote for its users stays.
func TestRedactRemovesAddressesDSNsAndCredentials(t *testing.T) {
	tests := []struct{ in, want string }{
		{"dial tcp 127.0.0.1:43263: connect: connection refused", "dial tcp [address]: connect: connection refused"},
		{"connection to 10.20.30.40 lost", "connection to [address] lost"},
		{"dial tcp [::1]:5432: connect: connection refused", "dial tcp [address]: connect: connection refused"},
		{"upstream fe80::1ff:fe23:4567:890a unreachable", "upstream [address] unreachable"},
		{"dial tcp db.internal.example:5432: i/o timeout", "dial tcp [address]: i/o timeout"},
		{"cannot reach localhost:6379", "cannot reach [address]"},
		{"dial tcp postgres:5432: no such host", "dial tcp [address]: no such host"},
		{"dial unix /var/run/app/backend.sock: connect: no such file or directory", "dial [address]: connect: no such file or directory"},
		{"socket /tmp/.s.PGSQL.5432 missing", "socket [address] missing"},
		{"grpc target unix:///run/svc.sock failed", "grpc target [address] failed"},
		{"failed to connect to postgres://app:s3cret@db.prod:5432/orders?sslmode=require", "failed to connect to [dsn]"},
		{"mongodb+srv://admin:pw@cluster0.mongodb.net/test refused", "[dsn] refused"},
		{"callback https://svc:tok@hooks.example/x failed", "callback [dsn] failed"},
		{"cannot open host=10.0.0.5 port=5432 user=app password=hunter2 dbname=orders sslmode=disable",
			"cannot open [dsn]"},
		{"login failed: password=hunter2", "login failed: password=[redacted]"},
		{`config {"api_key": "AbC123"}`, `config {"api_key": [redacted]}`},
		{"header Authorization: Bearer eyJhbGciOi.eyJzdWIiOiIx.sig_abc rejected", "header Authorization: Bearer [redacted] rejected"},
		{"key AKIAIOSFODNN7EXAMPLE is not allowed", "key [redacted] is not allowed"},
		{"token ghp_abcdefghijklmnopqrstuvwxyz0123 revoked", "token [redacted] revoked"},
		// Business text stays.
		{"element elem-1 not found", "element elem-1 not found"},
		{"the meeting at 10:45 is full", "the meeting at 10:45 is full"},
		{"user=alice may not edit this model", "user=alice may not edit this model"},
		{"version 3 was changed at 2026-11-28T10:45:00Z", "version 3 was changed at 2026-11-28T10:45:00Z"},
		{"see https://docs.example.com/errors#quota", "see https://docs.example.com/errors#quota"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := redact(tt.in); got != tt.want {
			t.Errorf("redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
