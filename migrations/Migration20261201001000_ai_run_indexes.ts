import { Migration } from '@mikro-orm/migrations'

/**
 * What the AI observability dashboard reads (issue 29, docs/decisions/030-ai-observability.md): its answer for
 * `hours=720` over a million `ai_runs` rows must come in 200 ms, and exact percentiles over half a million
 * rows cost ~850 ms on PostgreSQL (they sort every row), so the finished calls are rolled up as they finish.
 *
 * - `ai_run_rollups`: per hour and per UTC day (`span`), task and model, the finished calls: how many, how
 *   many succeeded and failed, the failures by class, the tokens. Rows still `running` are not in it; the
 *   dashboard counts them from `ai_runs` (few rows, `ai_runs_running_idx`) and judges the old ones interrupted.
 * - `ai_run_latency_rollups`: the same keys with a latency histogram, one row per non-empty bucket.
 *   `ai_latency_bucket(ms)`: exact below 100 ms, then buckets 5% wide; `ai_latency_bucket_ms(bucket)` is the
 *   largest latency of a bucket, the value a percentile reports (exact below 100 ms, at most 5% above beyond).
 * - Three statement-level triggers keep both tables equal to what `ai_runs` holds: an insert or update adds
 *   the finished rows of its new side and subtracts those of its old side, a delete (the hourly cleanup)
 *   subtracts and drops the rollup rows it empties. Set-based, so a bulk insert costs one upsert per key.
 * - Partial indexes for the dashboard's lists: rows still running (counted live), rows that did not succeed
 *   (recent failures, newest first).
 * Existing rows are rolled up here, in the migration's transaction.
 */
/**
 * Adds (`sign` 1) or subtracts (-1) the finished rows of `rows` (a trigger's transition table, or `ai_runs`
 * itself) to both rollups. Written out in each trigger function: a transition table is visible only to the
 * statements of the trigger function itself, not to a function it calls.
 */
function rollup(sign: 1 | -1, rows: string): string {
  const n = (expr: string) => (sign === 1 ? expr : `-(${expr})`)
  const spans = `${rows} x cross join (values ('hour'), ('day')) s (span)`
  return `insert into ai_run_rollups as r (span, start, task, model, calls, succeeded, failed, authentication,
      model_not_found, rate_limited, provider_unavailable, timeout, input_tokens, output_tokens, total_tokens)
    select s.span, date_trunc(s.span, x.started_at, 'UTC'), x.task, x.model,
      ${n('count(*)')},
      ${n("count(*) filter (where x.status = 'succeeded')")},
      ${n("count(*) filter (where x.status = 'failed')")},
      ${n("count(*) filter (where x.failure_class = 'authentication')")},
      ${n("count(*) filter (where x.failure_class = 'model_not_found')")},
      ${n("count(*) filter (where x.failure_class = 'rate_limited')")},
      ${n("count(*) filter (where x.failure_class = 'provider_unavailable')")},
      ${n("count(*) filter (where x.failure_class = 'timeout')")},
      ${n('coalesce(sum(x.input_tokens), 0)')},
      ${n('coalesce(sum(x.output_tokens), 0)')},
      ${n('coalesce(sum(coalesce(x.total_tokens, x.input_tokens + x.output_tokens)), 0)')}
    from ${spans}
    where x.status <> 'running'
    group by 1, 2, 3, 4
    on conflict (span, start, task, model) do update set
      calls = r.calls + excluded.calls, succeeded = r.succeeded + excluded.succeeded,
      failed = r.failed + excluded.failed, authentication = r.authentication + excluded.authentication,
      model_not_found = r.model_not_found + excluded.model_not_found,
      rate_limited = r.rate_limited + excluded.rate_limited,
      provider_unavailable = r.provider_unavailable + excluded.provider_unavailable,
      timeout = r.timeout + excluded.timeout, input_tokens = r.input_tokens + excluded.input_tokens,
      output_tokens = r.output_tokens + excluded.output_tokens,
      total_tokens = r.total_tokens + excluded.total_tokens;
  insert into ai_run_latency_rollups as r (span, start, task, model, bucket, calls)
    select s.span, date_trunc(s.span, x.started_at, 'UTC'), x.task, x.model, ai_latency_bucket(x.latency_ms),
      ${n('count(*)')}
    from ${spans}
    where x.status <> 'running' and x.latency_ms is not null
    group by 1, 2, 3, 4, 5
    on conflict (span, start, task, model, bucket) do update set calls = r.calls + excluded.calls;`
}

/** Drops the rollup rows a delete left at zero (the cleanup removes whole old hours), only among its keys. */
function dropEmptied(rows: string): string {
  const keys = `(select distinct s.span, date_trunc(s.span, x.started_at, 'UTC') as start, x.task, x.model
      from ${rows} x cross join (values ('hour'), ('day')) s (span)) k`
  const match =
    'r.span = k.span and r.start = k.start and r.task = k.task and r.model = k.model and r.calls = 0'
  return `delete from ai_run_rollups r using ${keys} where ${match};
  delete from ai_run_latency_rollups r using ${keys} where ${match};`
}

export class Migration20261201001000_ai_run_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table ai_run_rollups (
      span text not null check (span in ('hour', 'day')),
      start timestamptz not null,
      task text not null,
      model text not null,
      calls bigint not null default 0,
      succeeded bigint not null default 0,
      failed bigint not null default 0,
      authentication bigint not null default 0,
      model_not_found bigint not null default 0,
      rate_limited bigint not null default 0,
      provider_unavailable bigint not null default 0,
      timeout bigint not null default 0,
      input_tokens bigint not null default 0,
      output_tokens bigint not null default 0,
      total_tokens bigint not null default 0,
      primary key (span, start, task, model)
    );`)
    this.addSql(`create table ai_run_latency_rollups (
      span text not null check (span in ('hour', 'day')),
      start timestamptz not null,
      task text not null,
      model text not null,
      bucket smallint not null,
      calls bigint not null default 0,
      -- calls in the key's index too: the dashboard's reads are index-only scans (once vacuum marks pages visible)
      primary key (span, start, task, model, bucket) include (calls)
    );`)
    // The one definition of the histogram's buckets: 0–99 ms exact, then each bucket 5% wider than the last.
    this.addSql(`create function ai_latency_bucket(ms integer) returns smallint language sql immutable as $$
      select case when ms < 100 then greatest(ms, 0)
                  else least(100 + floor(ln(ms / 100.0) / ln(1.05)), 32000) end::smallint
    $$;`)
    this
      .addSql(`create function ai_latency_bucket_ms(bucket smallint) returns integer language sql immutable as $$
      select case when bucket < 100 then bucket::integer
                  else least(ceil(100 * power(1.05::float8, bucket - 99)) - 1, 2147483647)::integer end
    $$;`)
    this.addSql(`create function ai_runs_rollup_insert() returns trigger language plpgsql as $$
begin
  ${rollup(1, 'ai_run_new_rows')}
  return null;
end $$;`)
    this.addSql(`create function ai_runs_rollup_update() returns trigger language plpgsql as $$
begin
  ${rollup(-1, 'ai_run_old_rows')}
  ${rollup(1, 'ai_run_new_rows')}
  return null;
end $$;`)
    this.addSql(`create function ai_runs_rollup_delete() returns trigger language plpgsql as $$
begin
  ${rollup(-1, 'ai_run_old_rows')}
  ${dropEmptied('ai_run_old_rows')}
  return null;
end $$;`)
    this.addSql(`create trigger ai_runs_rollup_insert after insert on ai_runs
      referencing new table as ai_run_new_rows for each statement execute function ai_runs_rollup_insert();`)
    this.addSql(`create trigger ai_runs_rollup_update after update on ai_runs
      referencing old table as ai_run_old_rows new table as ai_run_new_rows
      for each statement execute function ai_runs_rollup_update();`)
    this.addSql(`create trigger ai_runs_rollup_delete after delete on ai_runs
      referencing old table as ai_run_old_rows for each statement execute function ai_runs_rollup_delete();`)

    this.addSql("create index ai_runs_running_idx on ai_runs (started_at) where status = 'running';")
    this.addSql("create index ai_runs_unsuccessful_idx on ai_runs (started_at) where status <> 'succeeded';")

    // The rows already there.
    for (const statement of rollup(1, 'ai_runs').split(/;\n/))
      this.addSql(statement.trim().replace(/;?$/, ';'))
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists ai_runs_rollup_insert on ai_runs;')
    this.addSql('drop trigger if exists ai_runs_rollup_update on ai_runs;')
    this.addSql('drop trigger if exists ai_runs_rollup_delete on ai_runs;')
    this.addSql('drop function if exists ai_runs_rollup_insert();')
    this.addSql('drop function if exists ai_runs_rollup_update();')
    this.addSql('drop function if exists ai_runs_rollup_delete();')
    this.addSql('drop function if exists ai_latency_bucket_ms(smallint);')
    this.addSql('drop function if exists ai_latency_bucket(integer);')
    this.addSql('drop index if exists ai_runs_running_idx;')
    this.addSql('drop index if exists ai_runs_unsuccessful_idx;')
    this.addSql('drop table if exists ai_run_latency_rollups;')
    this.addSql('drop table if exists ai_run_rollups;')
  }
}
