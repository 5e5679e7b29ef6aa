import type { ReactNode } from 'react'

/**
 * The AI observability page's charts as inline SVG, drawn on the server like the rest of the page (no script, no
 * charting library: three small charts are a few lines each). Each chart is an `<svg role="img">` with an
 * `aria-label` saying what it shows, and the page puts the numbers beside it as a table (the text alternative).
 * The SVG scales to its box (`viewBox`, width 100%), so a phone never scrolls sideways.
 */

const WIDTH = 640
const HEIGHT = 200
const PAD = { left: 56, right: 8, top: 12, bottom: 30 }
const PLOT_W = WIDTH - PAD.left - PAD.right
const PLOT_H = HEIGHT - PAD.top - PAD.bottom

/** At most this wide on a wide screen, so the labels keep a readable size; the full width on a phone. */
const CHART_STYLE = { maxWidth: '44rem', height: 'auto', display: 'block' } as const

/** Colours with at least 3:1 contrast on white (WCAG 1.4.11, non-text contrast). */
export const CHART_COLORS = { calls: '#2f5d9b', failed: '#b3261e', p50: '#2f5d9b', p95: '#b35c00' } as const

/** A round upper bound for an axis: 1, 2 or 5 times a power of ten, at least `max`. */
/** The frame every chart is drawn in: one size, one style, labelled for screen readers. */
function ChartFrame({
  label,
  testId,
  height = HEIGHT,
  children,
}: {
  label: string
  testId: string
  height?: number
  children: ReactNode
}) {
  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${height}`}
      width="100%"
      role="img"
      aria-label={label}
      className="ai-chart"
      style={CHART_STYLE}
      data-testid={testId}
    >
      {children}
    </svg>
  )
}

export function niceMax(max: number): number {
  if (max <= 0) return 1
  const power = 10 ** Math.floor(Math.log10(max))
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power
  return 10 * power
}

function Axis({ max, labels }: { max: number; labels: { first: string; last: string } }) {
  const y = (v: number) => PAD.top + PLOT_H - (v / max) * PLOT_H
  return (
    <g fontSize="17" fill="#555">
      {[0, max / 2, max].map((v) => (
        <g key={v}>
          <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(v)} y2={y(v)} stroke="#ddd" strokeWidth="1" />
          <text x={PAD.left - 6} y={y(v) + 6} textAnchor="end">
            {Number.isInteger(v) ? v : v.toFixed(1)}
          </text>
        </g>
      ))}
      <text x={PAD.left} y={HEIGHT - 8}>
        {labels.first}
      </text>
      <text x={WIDTH - PAD.right} y={HEIGHT - 8} textAnchor="end">
        {labels.last}
      </text>
    </g>
  )
}

/** Calls per bucket as bars, the failed part of each in the failure colour. */
export function CallsChart({
  points,
  label,
  axis,
}: {
  points: readonly { calls: number; failed: number }[]
  label: string
  axis: { first: string; last: string }
}) {
  const max = niceMax(Math.max(0, ...points.map((p) => p.calls)))
  const slot = PLOT_W / Math.max(1, points.length)
  const bar = Math.max(1, slot * 0.8)
  const h = (v: number) => (v / max) * PLOT_H
  return (
    <ChartFrame label={label} testId="chart-calls">
      <Axis max={max} labels={axis} />
      {points.map((p, i) => {
        const x = PAD.left + i * slot + (slot - bar) / 2
        const base = PAD.top + PLOT_H
        return (
          <g key={i}>
            {p.calls > 0 ? (
              <rect x={x} y={base - h(p.calls)} width={bar} height={h(p.calls)} fill={CHART_COLORS.calls} />
            ) : null}
            {p.failed > 0 ? (
              <rect
                x={x}
                y={base - h(p.failed)}
                width={bar}
                height={h(p.failed)}
                fill={CHART_COLORS.failed}
              />
            ) : null}
          </g>
        )
      })}
    </ChartFrame>
  )
}

/** p50 and p95 latency per bucket as two lines (a gap where a bucket had no finished call). */
export function LatencyChart({
  points,
  label,
  axis,
}: {
  points: readonly { p50LatencyMs: number | null; p95LatencyMs: number | null }[]
  label: string
  axis: { first: string; last: string }
}) {
  const max = niceMax(Math.max(0, ...points.map((p) => p.p95LatencyMs ?? 0)))
  const slot = PLOT_W / Math.max(1, points.length)
  const x = (i: number) => PAD.left + i * slot + slot / 2
  const y = (v: number) => PAD.top + PLOT_H - (v / max) * PLOT_H
  const path = (key: 'p50LatencyMs' | 'p95LatencyMs') => {
    let d = ''
    let pen = false
    points.forEach((p, i) => {
      const v = p[key]
      if (v === null) {
        pen = false
        return
      }
      d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)} ${y(v).toFixed(1)} `
      pen = true
    })
    return d.trim()
  }
  const dots = (key: 'p50LatencyMs' | 'p95LatencyMs', color: string) =>
    points.map((p, i) => {
      const v = p[key]
      return v === null ? null : <circle key={`${key}${i}`} cx={x(i)} cy={y(v)} r="2" fill={color} />
    })
  return (
    <ChartFrame label={label} testId="chart-latency">
      <Axis max={max} labels={axis} />
      <path d={path('p50LatencyMs')} fill="none" stroke={CHART_COLORS.p50} strokeWidth="2" />
      <path
        d={path('p95LatencyMs')}
        fill="none"
        stroke={CHART_COLORS.p95}
        strokeWidth="2"
        strokeDasharray="5 3"
      />
      {dots('p50LatencyMs', CHART_COLORS.p50)}
      {dots('p95LatencyMs', CHART_COLORS.p95)}
    </ChartFrame>
  )
}

/** Characters of a bar's name that fit the chart's width beside its number; the full name is its tooltip. */
const LABEL_CHARS = 44

/** `text`, cut to `max` characters with an ellipsis when longer. */
function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`
}

/** Total tokens per model as horizontal bars, each labelled with its name and number. */
export function TokensChart({
  bars,
  label,
}: {
  bars: readonly { name: string; tokens: number }[]
  label: string
}) {
  const row = 34
  const height = bars.length * row + 8
  const max = Math.max(1, ...bars.map((b) => b.tokens))
  const left = 4
  const room = WIDTH - left - 8
  return (
    <ChartFrame label={label} testId="chart-tokens" height={height}>
      {bars.map((b, i) => {
        const w = Math.max(1, (b.tokens / max) * room)
        return (
          <g key={b.name}>
            <title>{`${b.name}: ${b.tokens.toLocaleString('en')}`}</title>
            <rect
              x={left}
              y={4 + i * row}
              width={w}
              height={row - 6}
              fill={CHART_COLORS.calls}
              opacity="0.25"
            />
            <text x={left + 4} y={4 + i * row + row / 2 + 3} fontSize="18" fill="#222">
              {`${shorten(b.name, LABEL_CHARS)}: ${b.tokens.toLocaleString('en')}`}
            </text>
          </g>
        )
      })}
    </ChartFrame>
  )
}
