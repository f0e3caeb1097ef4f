package normalize

import (
	"fmt"
	"testing"
)

func TestZZDebugLiterals(t *testing.T) {
	for _, l := range [][]classTerm{rootCauseTerms, symptomTerms, contributingTerms, componentTerms, domainTerms} {
		for _, term := range l {
			short := []string{}
			for _, x := range term.literals {
				if len(x) <= 3 {
					short = append(short, x)
				}
			}
			if term.literals == nil || len(short) > 0 {
				fmt.Printf("%s nil=%v short=%q\n", term.slug, term.literals == nil, short)
			}
		}
	}
}
