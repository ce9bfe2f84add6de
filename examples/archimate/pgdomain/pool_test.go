package pgdomain

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A pool configured by GenericPlans runs every connection with
// plan_cache_mode force_generic_plan, one configured by CustomPlans with
// force_custom_plan.
func TestPlanModesSetThePoolsPlanCacheMode(t *testing.T) {
	dsn := os.Getenv("MCPWRITE_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("set MCPWRITE_TEST_POSTGRES_DSN to run against PostgreSQL")
	}
	for want, configure := range map[string]func(*pgxpool.Config){"force_generic_plan": GenericPlans, "force_custom_plan": CustomPlans} {
		cfg, err := pgxpool.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		configure(cfg)
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var mode string
		err = pool.QueryRow(context.Background(), "SHOW plan_cache_mode").Scan(&mode)
		pool.Close()
		if err != nil {
			t.Fatal(err)
		}
		if mode != want {
			t.Errorf("plan_cache_mode = %q, want %q", mode, want)
		}
	}
}
