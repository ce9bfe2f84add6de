package pgdomain

import "github.com/jackc/pgx/v5/pgxpool"

// CustomPlans makes every connection of cfg plan each statement with its
// parameters and the tables' current size (plan_cache_mode
// force_custom_plan). The repository's own statements do not need it:
// they have no plan but index lookups, so a generic plan PostgreSQL chose
// while the tables were small, and never analysed, costs as little when
// they have grown (docs/production.md, "Planner statistics"). It is for a
// pool that also runs statements not written so, such as the idempotency
// and proposal stores' (not measured without statistics); planning each
// time costs CPU on every write (about 0.4 ms for a footprint read,
// against 0.03 ms for its cached plan).
func CustomPlans(cfg *pgxpool.Config) {
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
}
