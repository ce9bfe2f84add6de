package pgdomain

import "github.com/jackc/pgx/v5/pgxpool"

// CustomPlans makes every connection of cfg plan each statement with its
// parameters and the tables' current size (plan_cache_mode
// force_custom_plan). pgx prepares a statement once per connection, and
// PostgreSQL may keep the generic plan it chose while the tables were
// small, and never analysed, for the life of the connection: the
// footprint's lookups then stay sequential scans as the tables grow, and a
// write's database CPU grows with every tenant's data (docs/production.md,
// "Planner statistics"). Planning each time costs a little on every write
// and keeps that cost flat.
func CustomPlans(cfg *pgxpool.Config) {
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
}
