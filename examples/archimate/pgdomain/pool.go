package pgdomain

import "github.com/jackc/pgx/v5/pgxpool"

// GenericPlans makes every connection of cfg keep one plan per prepared
// statement, made without the parameters' values (plan_cache_mode
// force_generic_plan), so that a write's statements are planned once per
// connection instead of on every execution. PostgreSQL's default (auto)
// plans the footprint read anew on every execution: its custom plan, which
// knows how many values each unnest reads, always looks cheaper than the
// generic one. Planning it costs about 0.3 ms of the database's CPU per
// write, ten times what running it costs (measured with
// pg_stat_statements on BenchmarkDurableWrite).
//
// Every statement such a pool runs must read by the same index under any
// plan, chosen on any table size, analysed or not: the repository's
// statements do (TestWritePlansChosenOnSmallTablesStayLookupsAsTheyGrow,
// docs/production.md "Planner statistics"), and so do the idempotency and
// proposal stores' statements of one key or one proposal (their
// TestKeyedStatementsReadByPrimaryKeyAsTheTableGrows). A pool that also
// runs statements of yours not written so should not use it.
func GenericPlans(cfg *pgxpool.Config) {
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
}

// CustomPlans makes every connection of cfg plan each statement with its
// parameters' values on every execution (plan_cache_mode
// force_custom_plan): for a pool that also runs statements that are not
// index lookups whatever plan they get, at the cost GenericPlans saves
// (about 0.3 ms of the database's CPU per keyed write).
func CustomPlans(cfg *pgxpool.Config) {
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
}
