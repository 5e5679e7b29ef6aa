import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import type { ReactNode } from 'react'
import {
  CallsChart,
  CHART_COLORS,
  LatencyChart,
  TokensChart,
} from '#app/components/ai-observability/charts.tsx'
import { useDataTable } from '#app/components/data-table.tsx'
import { formatDate } from '#app/components/terms/ui.tsx'
import { fill, type MessageKey } from '#app/lib/i18n.ts'
import { pageTitle } from '#app/lib/page-title.ts'
import { orErrorPage } from '#app/pages/forms.server.ts'
import { requireUser } from '#app/pages/session.server.ts'
import { useT } from '#app/root.tsx'
import {
  AiObservabilityQuerySchema,
  OBSERVED_FAILURE_CLASSES,
  TraceParamsSchema,
  type AiTrace,
} from '#app/schemas/ai-observability.ts'
import { getAiObservability, getAiTrace } from '#app/services/ai/observability.server.ts'
import { AppError } from '#app/lib/errors.server.ts'

export const meta: MetaFunction = ({ matches }) => [{ title: pageTitle(matches, 'aiObs.title') }]

/** The picker's ranges, in hours; any other valid `hours` in the address is shown too. */
const RANGES = [1, 24, 168, 720] as const

/**
 * The AI observability dashboard (issue 29, decision 030): what `GET /api/v1/admin/ai-observability` answers,
 * for the range in the address (`?hours=`, a GET form that works without JavaScript), as totals, a table by task
 * and model, failures by class, three server-drawn SVG charts with their numbers as tables, the newest failures
 * and traces, and one trace's calls (`?trace=<id>`).
 */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request, 'admin')
  const params = new URL(request.url).searchParams
  const query = AiObservabilityQuerySchema.safeParse({ hours: params.get('hours') || undefined })
  const hours = query.success ? query.data.hours : 24
  const traceParam = params.get('trace')
  const traceId = traceParam ? TraceParamsSchema.safeParse({ traceId: traceParam }) : null
  const [observed, trace] = await Promise.all([
    orErrorPage(() => getAiObservability({ hours })),
    traceId?.success ? findTrace(traceId.data.traceId) : Promise.resolve(null),
  ])
  return {
    observed,
    invalidRange: !query.success,
    trace: traceParam === null ? null : { id: traceParam, valid: traceId?.success ?? false, found: trace },
  }
}

/** One trace's calls, or null when it has none (an old or mistyped id: the page says so). */
async function findTrace(traceId: string): Promise<AiTrace | null> {
  try {
    return await getAiTrace({ traceId })
  } catch (error) {
    if (error instanceof AppError && error.code === 'not_found') return null
    throw error
  }
}

type Data = ReturnType<typeof useLoaderData<typeof loader>>
type Stats = Data['observed']['totals']

const taskKey = (task: string) => `aiObs.task.${task}` as MessageKey
const failureKey = (failure: string) =>
  (failure === 'interrupted' ? 'aiObs.failure.interrupted' : `ai.failure.${failure}`) as MessageKey

function Ms({ value }: { value: number | null }) {
  const t = useT()
  return <>{value === null ? t('aiObs.none') : fill(t('aiObs.ms'), { n: value.toLocaleString('en') })}</>
}

function Rate({ value }: { value: number | null }) {
  const t = useT()
  return <>{value === null ? t('aiObs.none') : `${(value * 100).toFixed(1)}%`}</>
}

/** The short time of a series bucket: `MM-DD HH:00` for hours, `YYYY-MM-DD` for days (UTC). */
function bucketLabel(iso: string, bucket: 'hour' | 'day'): string {
  return bucket === 'hour' ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10)
}

function FailureList({ failures }: { failures: Stats['failures'] }) {
  const t = useT()
  const present = OBSERVED_FAILURE_CLASSES.filter((c) => failures[c] > 0)
  if (present.length === 0) return <>{t('aiObs.none')}</>
  return (
    <>
      {present.map((c, i) => (
        <span key={c} className="small">
          {i > 0 ? ', ' : ''}
          <code>{c}</code> {failures[c]}
        </span>
      ))}
    </>
  )
}

function Totals({ totals }: { totals: Stats }) {
  const t = useT()
  const items: [MessageKey, ReactNode, string][] = [
    ['aiObs.calls', totals.calls.toLocaleString('en'), 'calls'],
    ['aiObs.successRate', <Rate key="r" value={totals.successRate} />, 'successRate'],
    ['aiObs.failed', totals.failed.toLocaleString('en'), 'failed'],
    ['aiObs.running', totals.running.toLocaleString('en'), 'running'],
    ['aiObs.p50', <Ms key="p50" value={totals.p50LatencyMs} />, 'p50'],
    ['aiObs.p95', <Ms key="p95" value={totals.p95LatencyMs} />, 'p95'],
    [
      'aiObs.tokens',
      <>
        {totals.totalTokens.toLocaleString('en')}{' '}
        <span className="muted small">
          (
          {fill(t('aiObs.tokensDetail'), {
            input: totals.inputTokens.toLocaleString('en'),
            output: totals.outputTokens.toLocaleString('en'),
          })}
          )
        </span>
      </>,
      'tokens',
    ],
  ]
  return (
    <table className="compact" data-testid="ai-totals">
      <tbody>
        {items.map(([label, value, key]) => (
          <tr key={key}>
            <th scope="row">{t(label)}</th>
            <td data-total={key}>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function GroupTable({ observed }: { observed: Data['observed'] }) {
  const t = useT()
  const table = useDataTable(
    {
      task: 'aiObs.task',
      model: 'aiObs.model',
      calls: 'aiObs.calls',
      rate: 'aiObs.successRate',
      p95: 'aiObs.p95',
      failures: 'aiObs.failures',
      tokens: 'aiObs.tokens',
    },
    { testId: 'ai-groups' },
  )
  if (observed.groups.length === 0) return <p className="muted">{t('aiObs.noCalls')}</p>
  return (
    <table {...table.props}>
      {table.head}
      <tbody {...table.body}>
        {observed.groups.map((g) => (
          <tr {...table.row} key={`${g.task}/${g.model}`} data-group={`${g.task}/${g.model}`}>
            <td {...table.cell('task')}>{t(taskKey(g.task))}</td>
            <td {...table.cell('model')}>
              <code>{g.model}</code>
            </td>
            <td {...table.cell('calls')}>
              {g.calls.toLocaleString('en')}
              {g.running > 0 ? (
                <span className="muted small">
                  {' '}
                  ({t('aiObs.running')} {g.running})
                </span>
              ) : null}
            </td>
            <td {...table.cell('rate')}>
              <Rate value={g.successRate} />
            </td>
            <td {...table.cell('p95')}>
              <Ms value={g.p95LatencyMs} />
            </td>
            <td {...table.cell('failures')}>
              <FailureList failures={g.failures} />
            </td>
            <td {...table.cell('tokens')}>{g.totalTokens.toLocaleString('en')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

function Legend({ entries }: { entries: { color: string; label: string; dashed?: boolean }[] }) {
  return (
    <p className="small ai-legend" aria-hidden="true">
      {entries.map((e) => (
        <span key={e.label} style={{ marginRight: '1em', whiteSpace: 'nowrap' }}>
          <svg width="14" height="10" viewBox="0 0 14 10" aria-hidden="true">
            {e.dashed ? (
              <line x1="0" y1="5" x2="14" y2="5" stroke={e.color} strokeWidth="2" strokeDasharray="4 2" />
            ) : (
              <rect width="14" height="10" fill={e.color} />
            )}
          </svg>{' '}
          {e.label}
        </span>
      ))}
    </p>
  )
}

function Charts({ observed }: { observed: Data['observed'] }) {
  const t = useT()
  const { series, bucket } = observed
  const bucketName = t(`aiObs.bucket.${bucket}`)
  const axis = {
    first: series.length ? bucketLabel(series[0]!.start, bucket) : '',
    last: series.length ? bucketLabel(series.at(-1)!.start, bucket) : '',
  }
  const dataTable = useDataTable(
    {
      start: 'aiObs.start',
      calls: 'aiObs.calls',
      failed: 'aiObs.failed',
      p50: 'aiObs.p50',
      p95: 'aiObs.p95',
    },
    { testId: 'ai-series' },
  )
  const bars = observed.groups
    .filter((g) => g.totalTokens > 0)
    .map((g) => ({ name: `${t(taskKey(g.task))} · ${g.model}`, tokens: g.totalTokens }))
  return (
    <>
      <h3>{t('aiObs.chart.calls')}</h3>
      <Legend
        entries={[
          { color: CHART_COLORS.calls, label: t('aiObs.legend.calls') },
          { color: CHART_COLORS.failed, label: t('aiObs.legend.failed') },
        ]}
      />
      <CallsChart
        points={series}
        axis={axis}
        label={fill(t('aiObs.chart.callsLabel'), {
          bucket: bucketName,
          from: axis.first,
          to: axis.last,
          max: Math.max(0, ...series.map((p) => p.calls)),
        })}
      />
      <h3>{t('aiObs.chart.latency')}</h3>
      <Legend
        entries={[
          { color: CHART_COLORS.p50, label: t('aiObs.legend.p50'), dashed: false },
          { color: CHART_COLORS.p95, label: t('aiObs.legend.p95'), dashed: true },
        ]}
      />
      <LatencyChart
        points={series}
        axis={axis}
        label={fill(t('aiObs.chart.latencyLabel'), {
          bucket: bucketName,
          max: Math.max(0, ...series.map((p) => p.p95LatencyMs ?? 0)),
        })}
      />
      <details>
        <summary>{t('aiObs.chart.data')}</summary>
        <table {...dataTable.props}>
          {dataTable.head}
          <tbody {...dataTable.body}>
            {series.map((p) => (
              <tr {...dataTable.row} key={p.start}>
                <td {...dataTable.cell('start')}>{bucketLabel(p.start, bucket)}</td>
                <td {...dataTable.cell('calls')}>{p.calls}</td>
                <td {...dataTable.cell('failed')}>{p.failed}</td>
                <td {...dataTable.cell('p50')}>
                  <Ms value={p.p50LatencyMs} />
                </td>
                <td {...dataTable.cell('p95')}>
                  <Ms value={p.p95LatencyMs} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
      <h3>{t('aiObs.chart.tokens')}</h3>
      {bars.length === 0 ? (
        <p className="muted">{t('aiObs.chart.noTokens')}</p>
      ) : (
        <TokensChart bars={bars} label={t('aiObs.chart.tokensLabel')} />
      )}
    </>
  )
}

function TraceView({ trace, hours }: { trace: NonNullable<Data['trace']>; hours: number }) {
  const t = useT()
  const table = useDataTable(
    {
      started: 'aiObs.started',
      task: 'aiObs.task',
      model: 'aiObs.model',
      purpose: 'aiObs.purpose',
      status: 'aiObs.status',
      latency: 'aiObs.latency',
      tokens: 'aiObs.tokens',
    },
    { testId: 'ai-trace' },
  )
  return (
    <section aria-labelledby="trace-title" className="ai-trace" data-testid="ai-trace-view">
      <h2 id="trace-title">
        {fill(t('aiObs.traceTitle'), { id: '' })}
        <code>{trace.id}</code>
      </h2>
      {!trace.valid ? (
        <p className="notice warning">{t('aiObs.traceInvalid')}</p>
      ) : !trace.found ? (
        <p className="notice warning" data-testid="ai-trace-missing">
          {t('aiObs.traceNotFound')}
        </p>
      ) : (
        <>
          <p className="muted small">{t('aiObs.traceIntro')}</p>
          <table {...table.props}>
            {table.head}
            <tbody {...table.body}>
              {trace.found.calls.map((c) => (
                <tr {...table.row} key={c.id} data-status={c.status}>
                  <td {...table.cell('started')}>{formatDate(c.startedAt)}</td>
                  <td {...table.cell('task')}>{t(taskKey(c.task))}</td>
                  <td {...table.cell('model')}>
                    <code>{c.model}</code>
                  </td>
                  <td {...table.cell('purpose')}>{t(`aiObs.purpose.${c.purpose}` as MessageKey)}</td>
                  <td {...table.cell('status')}>
                    {t(`aiObs.status.${c.status}` as MessageKey)}
                    {c.failureClass && c.failureClass !== 'interrupted' ? (
                      <>
                        {' '}
                        <code>{c.failureClass}</code>
                      </>
                    ) : null}
                    {c.httpStatus ? (
                      <span className="muted small"> {fill(t('aiObs.http'), { status: c.httpStatus })}</span>
                    ) : null}
                  </td>
                  <td {...table.cell('latency')}>
                    <Ms value={c.latencyMs} />
                  </td>
                  <td {...table.cell('tokens')}>
                    {c.totalTokens ?? (c.inputTokens !== null ? c.inputTokens + (c.outputTokens ?? 0) : '—')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <p>
        <Link to={`/admin/ai-observability?hours=${hours}`}>{t('aiObs.closeTrace')}</Link>
      </p>
    </section>
  )
}

export default function AiObservabilityPage() {
  const t = useT()
  const { observed, invalidRange, trace } = useLoaderData<typeof loader>()
  const { totals, hours } = observed
  const traceHref = (id: string) => `/admin/ai-observability?hours=${hours}&trace=${encodeURIComponent(id)}`
  const failuresTable = useDataTable(
    {
      when: 'aiObs.when',
      task: 'aiObs.task',
      model: 'aiObs.model',
      class: 'aiObs.class',
      trace: 'aiObs.trace',
    },
    { testId: 'ai-recent-failures' },
  )
  const tracesTable = useDataTable(
    {
      when: 'aiObs.when',
      purpose: 'aiObs.purpose',
      task: 'aiObs.task',
      calls: 'aiObs.calls',
      trace: 'aiObs.trace',
    },
    { testId: 'ai-recent-traces' },
  )
  const ranges: number[] = (RANGES as readonly number[]).includes(hours) ? [...RANGES] : [...RANGES, hours]
  return (
    <section>
      <h1>{t('aiObs.title')}</h1>
      <p className="muted">{t('aiObs.intro')}</p>
      <Form method="get" className="filters">
        <label>
          {t('aiObs.range')}
          <select name="hours" defaultValue={String(hours)}>
            {ranges.map((h) => (
              <option key={h} value={h}>
                {(RANGES as readonly number[]).includes(h)
                  ? t(`aiObs.range.${h}` as MessageKey)
                  : fill(t('aiObs.range.other'), { hours: h })}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">{t('aiObs.show')}</button>
      </Form>
      {invalidRange ? <p className="notice warning">{t('aiObs.invalidRange')}</p> : null}
      <p className="muted small">
        {fill(t('aiObs.window'), { from: formatDate(observed.from), to: formatDate(observed.to) })}{' '}
        {fill(t('aiObs.interruptedNote'), { minutes: observed.interruptedAfterMinutes })}
      </p>

      {trace ? <TraceView trace={trace} hours={hours} /> : null}

      <h2>{t('aiObs.totals')}</h2>
      <Totals totals={totals} />

      <h2>{t('aiObs.byModel')}</h2>
      <GroupTable observed={observed} />

      <h2>{t('aiObs.failuresByClass')}</h2>
      <table className="compact" data-testid="ai-failure-classes">
        <thead>
          <tr>
            <th scope="col">{t('aiObs.class')}</th>
            <th scope="col">{t('aiObs.count')}</th>
          </tr>
        </thead>
        <tbody>
          {OBSERVED_FAILURE_CLASSES.map((c) => (
            <tr key={c}>
              <td>
                <code>{c}</code> <span className="muted small">{t(failureKey(c))}</span>
              </td>
              <td data-failure={c}>{totals.failures[c]}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>{t('aiObs.charts')}</h2>
      <Charts observed={observed} />

      <h2>{t('aiObs.recentFailures')}</h2>
      {observed.recentFailures.length === 0 ? (
        <p className="muted">{t('aiObs.noFailures')}</p>
      ) : (
        <table {...failuresTable.props}>
          {failuresTable.head}
          <tbody {...failuresTable.body}>
            {observed.recentFailures.map((f) => (
              <tr {...failuresTable.row} key={f.id}>
                <td {...failuresTable.cell('when')}>{formatDate(f.startedAt)}</td>
                <td {...failuresTable.cell('task')}>{t(taskKey(f.task))}</td>
                <td {...failuresTable.cell('model')}>
                  <code>{f.model}</code>
                </td>
                <td {...failuresTable.cell('class')}>
                  <code>{f.failureClass ?? '—'}</code>
                  {f.httpStatus ? (
                    <span className="muted small"> {fill(t('aiObs.http'), { status: f.httpStatus })}</span>
                  ) : null}
                </td>
                <td {...failuresTable.cell('trace')}>
                  <Link to={traceHref(f.traceId)} data-testid="trace-link">
                    {t('aiObs.openTrace')}
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h2>{t('aiObs.recentTraces')}</h2>
      {observed.recentTraces.length === 0 ? (
        <p className="muted">{t('aiObs.noTraces')}</p>
      ) : (
        <table {...tracesTable.props}>
          {tracesTable.head}
          <tbody {...tracesTable.body}>
            {observed.recentTraces.map((r) => (
              <tr {...tracesTable.row} key={r.traceId}>
                <td {...tracesTable.cell('when')}>{formatDate(r.startedAt)}</td>
                <td {...tracesTable.cell('purpose')}>
                  {r.purposes.map((p) => t(`aiObs.purpose.${p}` as MessageKey)).join(', ')}
                </td>
                <td {...tracesTable.cell('task')}>{r.tasks.map((task) => t(taskKey(task))).join(', ')}</td>
                <td {...tracesTable.cell('calls')}>
                  {r.calls}
                  {r.failed > 0 ? (
                    <span className="muted small">
                      {' '}
                      ({t('aiObs.failed')} {r.failed})
                    </span>
                  ) : null}
                </td>
                <td {...tracesTable.cell('trace')}>
                  <Link to={traceHref(r.traceId)} data-testid="trace-link">
                    {t('aiObs.openTrace')}
                  </Link>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
