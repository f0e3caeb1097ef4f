package sqlite

import (
	"context"
	"testing"
)

// The same statement text is prepared once per connection and reused; a
// query run again while its own rows are open gets a statement of its own.
func TestStatementsArePreparedOncePerConnection(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cached := func() (n int) {
		_ = conn.Raw(func(dc any) error {
			n = len(dc.(*cachingConn).stmts)
			return nil
		})
		return n
	}
	const q = `SELECT value FROM json_each(?1)`
	before := cached()
	for range 3 {
		var v int
		if err := conn.QueryRowContext(ctx, q, "[7]").Scan(&v); err != nil || v != 7 {
			t.Fatalf("query: %d, %v; want 7", v, err)
		}
	}
	if got := cached(); got != before+1 {
		t.Errorf("%d statements cached after three runs of one query, want %d", got, before+1)
	}

	outer, err := conn.QueryContext(ctx, q, "[1,2]")
	if err != nil {
		t.Fatal(err)
	}
	var sums []int
	for outer.Next() {
		var a int
		if err := outer.Scan(&a); err != nil {
			t.Fatal(err)
		}
		var b int
		if err := conn.QueryRowContext(ctx, q, "[10]").Scan(&b); err != nil {
			t.Fatalf("the same query inside its open rows: %v", err)
		}
		sums = append(sums, a+b)
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums[0] != 11 || sums[1] != 12 {
		t.Errorf("nested runs gave %v, want [11 12]", sums)
	}
}
