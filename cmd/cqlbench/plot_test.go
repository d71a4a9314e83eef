package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// plotResult is a result with the given request latencies (µs) and successful operations.
func plotResult(driver string, ops int64, latencies ...int64) *runResult {
	r := &runResult{Driver: driver, Workload: wlReadPrepared, Concurrency: 1, Ops: ops, Elapsed: time.Second,
		Request: newHistogram(), Cycle: newHistogram(), Errors: map[string]int64{}}
	for _, l := range latencies {
		_ = r.Request.RecordValue(l)
	}
	return r
}

// ratedPlotResult is a --rate result with the given request and cycle latencies (µs).
func ratedPlotResult(driver string, request, cycle []int64) *runResult {
	r := plotResult(driver, int64(len(request)), request...)
	r.Rated = true
	for _, l := range cycle {
		_ = r.Cycle.RecordValue(l)
	}
	return r
}

// TestPlotWellFormed: the SVG parses as XML and holds no NaN or infinity with one driver, with
// a driver that had no successful operation, with latencies of 0 µs and at the histogram's top,
// and with no result at all. A driver without operations gets no latency curve (before the fix
// its empty histogram was drawn as a flat line at 1 µs, the best latency in the plot) and is
// named as such in the legend.
func TestPlotWellFormed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		results   []*runResult
		polylines int
		dashed    int // cycle-latency curves, among the polylines
	}{
		{"one driver", []*runResult{plotResult("native", 2, 100, 250)}, 1, 0},
		{"no ops", []*runResult{plotResult("native", 0)}, 0, 0},
		{"one without ops", []*runResult{plotResult("gocql", 0), plotResult("floor", 3, 0, 0, 1)}, 1, 0},
		{"saturated", []*runResult{plotResult("gocql", 2, histogramHighest, 5)}, 1, 0},
		{"nothing", nil, 0, 0},
		{"rated", []*runResult{ratedPlotResult("native", []int64{100, 250}, []int64{130, 900}), plotResult("floor", 1, 90)}, 3, 1},
		{"rated without ops", []*runResult{ratedPlotResult("gocql", nil, nil)}, 0, 0},
	} {
		svg := string(renderPlot(tc.results))
		dec := xml.NewDecoder(strings.NewReader(svg))
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: the SVG does not parse: %v\n%s", tc.name, err, svg)
			}
		}
		if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
			t.Errorf("%s: NaN or Inf in the SVG:\n%s", tc.name, svg)
		}
		if got := strings.Count(svg, "<polyline"); got != tc.polylines {
			t.Errorf("%s: %d latency curves, want %d:\n%s", tc.name, got, tc.polylines, svg)
		}
		if got := strings.Count(svg, "stroke-dasharray"); got != tc.dashed {
			t.Errorf("%s: %d dashed (cycle latency) curves, want %d", tc.name, got, tc.dashed)
		}
		for _, r := range tc.results {
			if r.Ops == 0 && !strings.Contains(svg, r.Driver+" (no successful operation)") {
				t.Errorf("%s: the legend does not say that %s had no successful operation", tc.name, r.Driver)
			}
		}
	}
}

// TestTableWithoutSuccesses: a driver without a successful operation has no latency and no
// per-operation cost: the table shows "-" for them, and its ratios to gocql are "-" rather than
// 0.00x, which read as infinitely better than gocql. (Before the fix the empty histogram's
// percentiles and the guarded divisions printed as 0 and 0.00x.)
func TestTableWithoutSuccesses(t *testing.T) {
	ok := plotResult("gocql", 3, 100, 200, 300)
	ok.CPU, ok.Allocs, ok.Bytes = 30*time.Microsecond, 30, 3000
	failed := plotResult("native", 0)
	failed.CPU, failed.Allocs, failed.Bytes = 10*time.Microsecond, 5, 500
	failed.Errors["io.EOF"] = 7
	var out strings.Builder
	printTable(&out, []*runResult{ok, failed})
	var row, ratio string
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "native" {
			if row == "" {
				row = l
			} else {
				ratio = l
			}
		}
	}
	// driver workload conc ops/s p50 p90 p99 p99.9 max CPU allocs B errors
	if f := strings.Fields(row); len(f) != 13 || f[3] != "0" || strings.Join(f[4:12], " ") != "- - - - - - - -" {
		t.Errorf("row of the driver without successes: %q, want 0 ops/s and - for every latency and per-op cost", row)
	}
	if f := strings.Fields(ratio); len(f) != 7 || strings.Join(f[1:], " ") != "0.00x - - - - -" {
		t.Errorf("ratios of the driver without successes: %q, want 0.00x for ops/s and - otherwise", ratio)
	}
	if !strings.Contains(out.String(), "io.EOF=7") {
		t.Errorf("errors not shown:\n%s", out.String())
	}
}

// TestPlotCycleLatencyScale: the latency axis spans the cycle latencies too, which are longer
// than the request latencies: a cycle latency of 2 s puts a "2s"-or-higher decade on the axis
// although no request took more than 1 ms.
func TestPlotCycleLatencyScale(t *testing.T) {
	svg := string(renderPlot([]*runResult{ratedPlotResult("native", []int64{100, 900}, []int64{150, 2_000_000})}))
	if !strings.Contains(svg, ">10s<") {
		t.Errorf("the latency axis does not reach the 2 s cycle latency (no 10s decade):\n%s", svg)
	}
	if !strings.Contains(svg, "cycle latency from the scheduled start (dashed)") {
		t.Error("the panel title does not explain the dashed curves")
	}
}

// TestPlotCurvesStayInPanel: every point of every curve lies inside the latency panel. (Before
// the fix each curve started at the histogram's p0, which is 0 whatever was recorded, drawn
// below the panel's bottom edge.)
func TestPlotCurvesStayInPanel(t *testing.T) {
	svg := string(renderPlot([]*runResult{ratedPlotResult("native", []int64{120, 900}, []int64{150, 4000}), plotResult("floor", 3, 0, 0, 1)}))
	const top, bottom = 40.0, 360.0 // the panel's y and y+height in renderPlot
	for _, line := range strings.Split(svg, "\n") {
		i := strings.Index(line, `points="`)
		if !strings.HasPrefix(line, "<polyline") || i < 0 {
			continue
		}
		pts := strings.TrimSuffix(line[i+len(`points="`):], `"/>`)
		for _, pt := range strings.Fields(pts) {
			var x, y float64
			if _, err := fmt.Sscanf(pt, "%g,%g", &x, &y); err != nil {
				t.Fatalf("point %q: %v", pt, err)
			}
			if y < top || y > bottom {
				t.Errorf("point %s lies outside the panel (y %g..%g)", pt, top, bottom)
			}
		}
	}
}
