// Package nativeopts carries settings of the native core that only the gocql compat layer
// uses, so that they stay out of native.Config's public fields. Package native fills in the
// functions when it is initialised.
package nativeopts

// SendUnsetAtV3, called with a *native.Config, makes sessions connected with it send unset
// values at protocol v3 as gocql v1.7.0 does (a v3 server reads them as NULL), instead of
// refusing such statements before sending them.
var SendUnsetAtV3 func(cfg any)
