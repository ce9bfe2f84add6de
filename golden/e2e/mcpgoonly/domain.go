// Package mcpgoonly is a capability generated with sdk=mcp-go
// (buf.gen.yaml): parking reservations whose tools register on a
// mark3labs/mcp-go server. Its server (cmd/parking-server) serves them over
// stdio or bearer-authenticated HTTP and links no go-sdk; the tests call the
// tools through an mcp-go client and check that build.
package mcpgoonly

import (
	"context"
	"sync"

	parkingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/mcpgoonly/gen/parking/v1"
)

// Garage is the parking domain: it keeps reservations in memory, with the
// tenant and holder the server filled.
type Garage struct {
	mu       sync.Mutex
	Reserved []*parkingv1.ReserveSpotRequest
}

// ReserveSpot records the reservation and answers it without the tenant
// or the holder.
func (g *Garage) ReserveSpot(_ context.Context, req *parkingv1.ReserveSpotRequest) (*parkingv1.ReserveSpotResponse, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.Reserved = append(g.Reserved, req)
	return &parkingv1.ReserveSpotResponse{Reservation: &parkingv1.Reservation{
		ReservationId: req.GetReservationId(), Level: req.GetLevel(), Day: req.GetDay(), Plate: req.GetPlate(),
	}}, nil
}
