package cqlsim

import (
	"math"
	"math/big"
	"strconv"
)

// tokensPerNode is how many Murmur3 tokens each simulated node owns (Cassandra 4+ defaults to 16
// vnodes; a few are enough to make routing meaningful and keep system tables small).
const tokensPerNode = 4

// nodeTokens spreads nodes*tokensPerNode tokens evenly over the Murmur3 range
// (-2^63, 2^63) and deals them to nodes round-robin, so every node owns distinct tokens and
// ranges are interleaved like vnodes. It returns the decimal token strings per node.
func nodeTokens(nodes int) [][]string {
	total := nodes * tokensPerNode
	span := new(big.Int).Lsh(big.NewInt(1), 64) // size of the token range
	step := new(big.Int).Div(span, big.NewInt(int64(total)))
	// Start half a step above the minimum token: Cassandra never assigns -2^63 to a node.
	first := new(big.Int).Rsh(step, 1)
	first.Add(first, big.NewInt(math.MinInt64))
	out := make([][]string, nodes)
	for i := 0; i < total; i++ {
		t := new(big.Int).Mul(step, big.NewInt(int64(i)))
		t.Add(t, first)
		out[i%nodes] = append(out[i%nodes], strconv.FormatInt(t.Int64(), 10))
	}
	return out
}
