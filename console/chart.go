package console

import (
	"fmt"
	"strconv"
	"time"

	"github.com/natter-chat/natter/chat"
)

// chart is a bar chart drawn on the server as SVG: no script, no inline style (the bars'
// colours come from console.css), and a description for screen readers beside a table of
// the same figures.
type chart struct {
	Width, Height, Base int
	Desc                string
	Bars                []bar
	Ticks               []tick
}

type bar struct {
	X, Y, W, H int
	Label      string
	Value      int64
}

type tick struct {
	X, Y  int
	Label string
}

// barChart draws one bar per day, scaled to the busiest day.
func barChart(days []chat.DayCount) chart {
	const width, height, base, slot = 700, 240, 210, 50
	c := chart{Width: width, Height: height, Base: base}
	var top, total int64
	for _, d := range days {
		top = max(top, d.Messages)
		total += d.Messages
	}
	for i, d := range days {
		h := 0
		if top > 0 {
			h = int(d.Messages * (base - 10) / top)
		}
		if d.Messages > 0 && h < 2 {
			h = 2 // a day with messages shows
		}
		label := time.Unix(d.Day, 0).UTC().Format("Jan 2")
		c.Bars = append(c.Bars, bar{X: i*slot + 8, Y: base - h, W: slot - 16, H: h, Label: label, Value: d.Messages})
		if i%2 == (len(days)-1)%2 { // every other day, ending with today
			c.Ticks = append(c.Ticks, tick{X: i*slot + slot/2, Y: base + 20, Label: label})
		}
	}
	c.Desc = fmt.Sprintf("%s messages in %d days; the busiest day had %s.", strconv.FormatInt(total, 10), len(days), strconv.FormatInt(top, 10))
	return c
}
