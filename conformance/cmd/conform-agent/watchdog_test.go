package main

import (
	"context"
	"testing"
	"time"
)

func TestRunScenarioReportsAHang(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	start := time.Now()
	_, finished := runScenario(10*time.Millisecond, 20*time.Millisecond, func(context.Context) { <-block })
	if finished {
		t.Fatal("a scenario that never returns finished")
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the hang was reported after %v", took)
	}
	if p, finished := runScenario(time.Minute, time.Minute, func(context.Context) { panic("boom") }); !finished || p != "boom" {
		t.Errorf("a panicking scenario: %q, finished %v", p, finished)
	}
	if p, finished := runScenario(10*time.Millisecond, time.Minute, func(ctx context.Context) { <-ctx.Done() }); !finished || p != "" {
		t.Errorf("a scenario that returns at its deadline: %q, finished %v", p, finished)
	}
}
