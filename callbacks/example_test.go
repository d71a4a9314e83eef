package callbacks_test

import (
	"errors"
	"fmt"

	"github.com/cqlbridge/cqlbridge/callbacks"
)

func Example() {
	var l callbacks.List[string]
	l.AddCallback(func(v string) { fmt.Println("first:", v) })
	l.AddErrback(func(err error) { fmt.Println("errback:", err) })
	l.AddCallback(func(v string) { fmt.Println("second:", v) })

	l.Succeed("page 1") // runs the callbacks in order, in this goroutine

	// Added after completion: runs now, before AddCallback returns.
	l.AddCallback(func(v string) { fmt.Println("late:", v) })

	// A new completion re-fires everything registered.
	l.Reset()
	l.Fail(errors.New("timed out"))
	// Output:
	// first: page 1
	// second: page 1
	// late: page 1
	// errback: timed out
}

func ExampleOptions_pythonReroute() {
	l := callbacks.NewList[int](callbacks.Options{Panics: callbacks.PythonReroute})
	l.AddCallback(func(int) { panic("callback bug") })
	l.AddErrback(func(err error) { fmt.Println("errback:", err) })
	l.Succeed(1)
	v, err, _ := l.Outcome()
	fmt.Println("outcome:", v, err)
	// Output:
	// errback: callbacks: callback #0 panicked: callback bug
	// outcome: 1 <nil>
}
