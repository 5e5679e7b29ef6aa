// parse-prometheus-text-format ships no types; the metrics tests read `GET /metrics` with it (prom2json's shape).
declare module 'parse-prometheus-text-format' {
  export interface PrometheusSample {
    value?: string
    labels?: Record<string, string>
    /** Histograms: cumulative counts by upper bound (`le`). */
    buckets?: Record<string, string>
    count?: string
    sum?: string
  }
  export interface PrometheusFamily {
    name: string
    help: string
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'
    metrics: PrometheusSample[]
  }
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[]
}
