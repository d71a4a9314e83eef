package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// plotColors are the series colours, in driver order.
var plotColors = []string{"#d62728", "#1f77b4", "#2ca02c", "#7f7f7f", "#9467bd", "#ff7f0e"}

// renderPlot draws an SVG with two panels: the request-latency distribution of each result
// (latency against percentile on a "nines" scale, both logarithmic), with, for a run with
// --rate, its cycle-latency distribution as a dashed curve of the same colour, and throughput
// bars.
func renderPlot(results []*runResult) []byte {
	const (
		width, height  = 960, 420
		lx, ly, lw, lh = 70.0, 40.0, 520.0, 320.0 // latency panel
		bx, bw         = 680.0, 240.0             // throughput panel (same y and height)
	)
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	title := "cqlbench"
	if len(results) > 0 {
		title = fmt.Sprintf("cqlbench %s, concurrency %d", results[0].Workload, results[0].Concurrency)
	}
	fmt.Fprintf(&sb, `<text x="%d" y="20" font-size="15">%s</text>`+"\n", 20, title)

	// Latency panel: x = log10(1/(1-q)) from q=0 to q=0.9999 (0..4 nines), y = log10(µs).
	maxLat := int64(1)
	minLat := int64(math.MaxInt64)
	rated := false
	for _, r := range results {
		for _, h := range []*hdrhistogram.Histogram{r.Request, r.Cycle} {
			if h == nil || h.TotalCount() == 0 {
				continue
			}
			maxLat = max(maxLat, h.Max())
			if m := h.Min(); m > 0 && m < minLat {
				minLat = m
			}
		}
		rated = rated || r.hasCycle()
	}
	if minLat == math.MaxInt64 {
		minLat = 1
	}
	yLo := math.Floor(math.Log10(float64(minLat)))
	yHi := math.Ceil(math.Log10(float64(maxLat)))
	if yHi <= yLo {
		yHi = yLo + 1
	}
	yOf := func(us int64) float64 {
		v := math.Log10(math.Max(float64(us), 1))
		v = math.Min(math.Max(v, yLo), yHi) // a 0 µs latency sits on the axis, not below it
		return ly + lh - (v-yLo)/(yHi-yLo)*lh
	}
	xOf := func(q float64) float64 { return lx + math.Log10(1/(1-q))/4*lw }
	fmt.Fprintf(&sb, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#444"/>`+"\n", lx, ly, lw, lh)
	for i, lbl := range []string{"p0", "p90", "p99", "p99.9", "p99.99"} {
		x := lx + float64(i)/4*lw
		fmt.Fprintf(&sb, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#ddd"/><text x="%.1f" y="%.0f" text-anchor="middle">%s</text>`+"\n", x, ly, x, ly+lh, x, ly+lh+16, lbl)
	}
	for e := yLo; e <= yHi; e++ {
		y := ly + lh - (e-yLo)/(yHi-yLo)*lh
		fmt.Fprintf(&sb, `<line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#ddd"/><text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", lx, y, lx+lw, y, lx-6, y+4, fmtMicros(math.Pow(10, e)))
	}
	panelTitle := "request latency by percentile"
	if rated {
		panelTitle = "request latency (solid) and cycle latency from the scheduled start (dashed) by percentile"
	}
	fmt.Fprintf(&sb, `<text x="%.0f" y="%.0f" text-anchor="middle">%s</text>`+"\n", lx+lw/2, ly-8, panelTitle)
	curve := func(h *hdrhistogram.Histogram, col, dash string) {
		var pts []string
		for k := 0; k <= 200; k++ {
			q := 1 - math.Pow(10, -4*float64(k)/200)
			if k == 200 {
				q = 0.9999
			}
			v := h.ValueAtQuantile(q * 100)
			if k == 0 {
				v = h.Min() // the histogram's p0 is 0 whatever was recorded
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(q), yOf(v)))
		}
		fmt.Fprintf(&sb, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", col, dash, strings.Join(pts, " "))
	}
	for i, r := range results {
		col := plotColors[i%len(plotColors)]
		if r.Request.TotalCount() == 0 {
			// No latency to draw: a curve of the empty histogram's zeros would read as the
			// fastest driver of all.
			fmt.Fprintf(&sb, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="none" stroke="%s"/><text x="%.0f" y="%.0f">%s (no successful operation)</text>`+"\n", lx+10, ly+10+float64(i)*16, col, lx+24, ly+19+float64(i)*16, r.Driver)
			continue
		}
		curve(r.Request, col, "")
		if r.hasCycle() {
			curve(r.Cycle, col, ` stroke-dasharray="6,4"`)
		}
		fmt.Fprintf(&sb, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n", lx+10, ly+10+float64(i)*16, col, lx+24, ly+19+float64(i)*16, r.Driver)
	}

	// Throughput panel.
	maxOps := 1.0
	for _, r := range results {
		maxOps = math.Max(maxOps, r.opsPerS())
	}
	fmt.Fprintf(&sb, `<text x="%.0f" y="%.0f" text-anchor="middle">throughput (ops/s)</text>`+"\n", bx+bw/2, ly-8)
	fmt.Fprintf(&sb, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#444"/>`+"\n", bx, ly+lh, bx+bw, ly+lh)
	n := float64(len(results))
	for i, r := range results {
		col := plotColors[i%len(plotColors)]
		slot := bw / math.Max(n, 1)
		h := r.opsPerS() / maxOps * (lh - 20)
		x := bx + float64(i)*slot + slot*0.15
		fmt.Fprintf(&sb, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", x, ly+lh-h, slot*0.7, h, col)
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle">%.0f</text>`+"\n", x+slot*0.35, ly+lh-h-4, r.opsPerS())
		fmt.Fprintf(&sb, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x+slot*0.35, ly+lh+16, r.Driver)
	}
	sb.WriteString("</svg>\n")
	return []byte(sb.String())
}

// hasCycle reports whether r is a --rate run with cycle latencies to draw.
func (r *runResult) hasCycle() bool { return r.Rated && r.Cycle != nil && r.Cycle.TotalCount() > 0 }

func fmtMicros(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%gs", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%gms", us/1e3)
	}
	return fmt.Sprintf("%gµs", us)
}
