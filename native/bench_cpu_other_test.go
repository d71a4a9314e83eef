//go:build !linux

package native_test

import "time"

// processCPU is not measured here: benchmarks report no CPU metric.
func processCPU() time.Duration { return 0 }
