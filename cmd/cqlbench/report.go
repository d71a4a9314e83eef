package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// jsonRecord is one run in --json output. The keys are a fixed interface other tools read.
type jsonRecord struct {
	Driver      string           `json:"driver"`
	Workload    string           `json:"workload"`
	Concurrency int              `json:"concurrency"`
	OpsPerS     float64          `json:"ops_per_s"`
	P50us       int64            `json:"p50_us"`
	P99us       int64            `json:"p99_us"`
	P999us      int64            `json:"p999_us"`
	CPUusPerOp  float64          `json:"cpu_us_per_op"`
	AllocsPerOp float64          `json:"allocs_per_op"`
	BytesPerOp  float64          `json:"bytes_per_op"`
	Errors      map[string]int64 `json:"errors"`
}

func (r *runResult) record() jsonRecord {
	return jsonRecord{
		Driver: r.Driver, Workload: r.Workload, Concurrency: r.Concurrency,
		OpsPerS:     round(r.opsPerS(), 1),
		P50us:       r.Request.ValueAtQuantile(50),
		P99us:       r.Request.ValueAtQuantile(99),
		P999us:      r.Request.ValueAtQuantile(99.9),
		CPUusPerOp:  round(r.perOp(float64(r.CPU.Microseconds())), 2),
		AllocsPerOp: round(r.perOp(float64(r.Allocs)), 2),
		BytesPerOp:  round(r.perOp(float64(r.Bytes)), 1),
		Errors:      r.Errors,
	}
}

func round(v float64, digits int) float64 {
	p := 1.0
	for i := 0; i < digits; i++ {
		p *= 10
	}
	if v < 0 {
		return float64(int64(v*p-0.5)) / p
	}
	return float64(int64(v*p+0.5)) / p
}

// encodeJSON encodes one object for a single run, or an array for --compare.
func encodeJSON(results []*runResult, single bool) ([]byte, error) {
	var v any
	if single {
		v = results[0].record()
	} else {
		recs := make([]jsonRecord, len(results))
		for i, r := range results {
			recs[i] = r.record()
		}
		v = recs
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// printTable prints one line per result with every measured figure, and ratios to the baseline
// (gocql) when it is among the results.
func printTable(w io.Writer, results []*runResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	rated := false
	for _, r := range results {
		rated = rated || r.Rated
	}
	hdr := "driver\tworkload\tconc\tops/s\tp50 µs\tp90 µs\tp99 µs\tp99.9 µs\tmax µs\t"
	if rated {
		hdr += "cycle p50\tcycle p99\tcycle p99.9\t"
	}
	hdr += "CPU µs/op\tallocs/op\tB/op\terrors\t"
	fmt.Fprintln(tw, hdr)
	for _, r := range results {
		rec := r.record()
		line := fmt.Sprintf("%s\t%s\t%d\t%.0f\t", r.Driver, r.Workload, r.Concurrency, rec.OpsPerS)
		if r.Ops == 0 {
			// No successful operation: no latency and no cost per operation to show (the
			// empty histograms and the guarded divisions give 0, which reads as the best).
			n := 8
			if rated {
				n += 3
			}
			line += strings.Repeat("-\t", n) + errorSummary(r.Errors) + "\t"
			fmt.Fprintln(tw, line)
			continue
		}
		line += fmt.Sprintf("%d\t%d\t%d\t%d\t%d\t", rec.P50us, r.Request.ValueAtQuantile(90), rec.P99us, rec.P999us, r.Request.Max())
		if rated {
			line += fmt.Sprintf("%d\t%d\t%d\t", r.Cycle.ValueAtQuantile(50), r.Cycle.ValueAtQuantile(99), r.Cycle.ValueAtQuantile(99.9))
		}
		line += fmt.Sprintf("%.1f\t%.1f\t%.0f\t%s\t", rec.CPUusPerOp, rec.AllocsPerOp, rec.BytesPerOp, errorSummary(r.Errors))
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	for _, r := range results {
		if r.Behind > 0 {
			fmt.Fprintf(w, "%s: fell behind --rate: %d operations due by the end of the window had not started; "+
				"their cycle latency is in no histogram, so the cycle percentiles understate the queue\n", r.Driver, r.Behind)
		}
		if r.Unfinished > 0 && r.OldestUnfinished.Microseconds() > r.Request.Max() {
			fmt.Fprintf(w, "%s: %d operations were still in flight when the window closed, the oldest for %d µs, "+
				"longer than any measured latency: they are in no histogram, so the highest percentiles understate the stall\n",
				r.Driver, r.Unfinished, r.OldestUnfinished.Microseconds())
		}
		if r.CoarsePacers > 0 {
			fmt.Fprintf(w, "%s: %d workers waited for their scheduled starts on Go timers, not a timerfd (%s): "+
				"their cycle latencies include those timers' lateness, up to about 1 ms\n", r.Driver, r.CoarsePacers, r.PacerErr)
		}
		if r.Saturated > 0 {
			fmt.Fprintf(w, "%s: %d latencies above the histograms' range (%d µs) were recorded as %d µs: "+
				"the percentiles that reach it are lower bounds\n", r.Driver, r.Saturated, r.Request.HighestTrackableValue(), r.Request.HighestTrackableValue())
		}
	}

	var base *runResult
	for _, r := range results {
		if r.Driver == "gocql" {
			base = r
		}
	}
	if base == nil || len(results) < 2 {
		return
	}
	b := base.record()
	fmt.Fprintln(w, "\nratios to gocql (lower is better except ops/s):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "driver\tops/s\tp50\tp99\tCPU/op\tallocs/op\tB/op\t")
	for _, r := range results {
		rec := r.record()
		if r.Ops == 0 || base.Ops == 0 {
			// Latency and costs per operation are undefined without a successful operation.
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t-\t\n", r.Driver, ratio(rec.OpsPerS, b.OpsPerS))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Driver,
			ratio(rec.OpsPerS, b.OpsPerS), ratio(float64(rec.P50us), float64(b.P50us)), ratio(float64(rec.P99us), float64(b.P99us)),
			ratio(rec.CPUusPerOp, b.CPUusPerOp), ratio(rec.AllocsPerOp, b.AllocsPerOp), ratio(rec.BytesPerOp, b.BytesPerOp))
	}
	tw.Flush()
}

func ratio(v, base float64) string {
	if base == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", v/base)
}

func errorSummary(m map[string]int64) string {
	if len(m) == 0 {
		return "0"
	}
	parts := make([]string, 0, len(m))
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, ",")
}
