package mcphttp

import (
	"net/http"
	"time"
)

// refuseUnread makes the answer about to be written the connection's last
// and stops the server from reading what remains of the request body.
func refuseUnread(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}
