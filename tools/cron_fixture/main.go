// Writes core/src/cron/testdata/robfig.tsv: how robfig/cron v3 (the parser Karpenter evaluates
// budget schedules with) parses schedules and where their next hit after a checkpoint falls,
// and whether Karpenter's budget check calls the budget active. nodecast's core/src/cron.rs
// must reproduce every line. Run with the Go Karpenter is built with:
//
//	cd tools/cron_fixture && GOTOOLCHAIN=go1.27.3 go run . > ../../core/src/cron/testdata/robfig.tsv
package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

type lcg uint64

func (r *lcg) next(n int) int {
	*r = *r*6364136223846793005 + 1442695040888963407
	return int(uint64(*r>>33) % uint64(n))
}

var fixed = []string{
	"* * * * *", "0 9 * * mon-fri", "0 9 * * 1-5", "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight",
	"@hourly", "@Daily", "@dailyX", "@every 1h30m", "@every 90s", "@every 500ms", "@every x", "0 0 30 2 *", "0 0 31 4 *",
	"0 0 29 2 *", "* * * * 7", "* * * * 0", "*-5 * * * *", "?-5 * * * *", "0/4294967296 * * * *", "0/9223372036854775807 * * * *",
	"0/99999999999999999999 * * * *", "1,,2 * * * *", ", * * * *", "* * 0 * *", "60 * * * *", "*/0 * * * *", "1-2-3 * * * *",
	"1/2/3 * * * *", "x * * * * *", "* * * *", "", "  ", "-5 * * * *", "+5 * * * *", "5-3 * * * *", "0 0 * * tue-mon",
	"0 0 1 * sun", "0 0 1-7 * sun", "0 0 */2 * sun", "0 0 */1 * sun", "0 0 * * */1", "0 0 ? * sun", "30 6 * * SUN",
	"0 0 1 jan *", "0 0 1 JAN-Jun *", "15 14 1 * *", "0 22 * * 1-5", "23 0-20/2 * * *", "5 4 * * sun", "0 0,12 1 */2 *",
	"0 0 13 * 5", "59 23 31 12 *", "0 0 1 1 *", "*/15 * * * *", "0 */3 * * *",
}

var fields = []string{"*", "?", "0", "5", "*/2", "*/7", "1-5", "3/4", "1,15", "jan", "mon-fri", "sun", "10-20/3", "*/1", "L", "31", "2"}

func main() {
	r := lcg(42)
	var schedules []string
	schedules = append(schedules, fixed...)
	for i := 0; i < 300; i++ {
		var f []string
		for j := 0; j < 5; j++ {
			f = append(f, fields[r.next(len(fields))])
		}
		schedules = append(schedules, strings.Join(f, " "))
	}
	base := time.Date(2025, 3, 5, 12, 0, 0, 0, time.UTC).Unix()
	durations := []int64{0, 60, 3600, 8 * 3600, 86400, 7 * 86400, 40 * 86400, 400 * 86400}
	for _, s := range schedules {
		sched, err := cron.ParseStandard("TZ=UTC " + s)
		if err != nil {
			fmt.Printf("%s\t-\t-\terror\t%s\n", s, err)
			continue
		}
		for k := 0; k < 6; k++ {
			now := base + int64(r.next(4*365*86400)) - 2*365*86400
			if k == 0 {
				now = base
			}
			d := durations[r.next(len(durations))]
			checkpoint := time.Unix(now-d, 0).UTC()
			next := sched.Next(checkpoint)
			n := "zero"
			if !next.IsZero() {
				n = fmt.Sprint(next.Unix())
			}
			active := !next.After(time.Unix(now, 0).UTC())
			fmt.Printf("%s\t%d\t%d\t%s\t%v\n", s, now, d, n, active)
		}
	}
}
