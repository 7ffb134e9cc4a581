package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"strconv"
	"strings"
)

// The plot of a soak: one panel per series, stacked, time along x. Each
// panel is labelled with its name and its minimum and maximum in a tiny
// built-in font; the exact values are in the CSV file.

// Plot geometry, in pixels.
const (
	plotWidth   = 800
	panelHeight = 150
	plotMargin  = 8  // around the whole image and between panels
	labelHeight = 14 // the label line above each panel's frame
	axisHeight  = 14 // the time line under the last panel
	glyphScale  = 2  // each font pixel is a 2×2 block
)

var (
	colBackground = color.RGBA{255, 255, 255, 255}
	colFrame      = color.RGBA{160, 160, 160, 255}
	colLine       = color.RGBA{20, 90, 200, 255}
	colText       = color.RGBA{0, 0, 0, 255}
)

// plotSize is the size of the PNG for n series.
func plotSize(n int) (w, h int) {
	return plotWidth, plotMargin + n*(labelHeight+panelHeight+plotMargin) + axisHeight
}

// writePlot renders the samples as a PNG.
func writePlot(w io.Writer, samples []sample) error {
	width, height := plotSize(len(series))
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), &image.Uniform{colBackground}, image.Point{}, draw.Src)
	var end float64 // seconds
	if len(samples) > 0 {
		end = samples[len(samples)-1].at.Seconds()
	}
	y := plotMargin
	for i, name := range series {
		frame := image.Rect(plotMargin, y+labelHeight, width-plotMargin, y+labelHeight+panelHeight)
		lo, hi, ok := seriesRange(samples, i)
		label := strings.ToUpper(strings.ReplaceAll(name, "_", " "))
		if ok {
			label += fmt.Sprintf("  MIN %s  MAX %s", num(lo), num(hi))
		} else {
			label += "  NOT SAMPLED"
		}
		drawText(img, frame.Min.X, y+2, label, colText)
		drawRect(img, frame, colFrame)
		if ok {
			plotSeries(img, frame.Inset(2), samples, i, lo, hi, end)
		}
		y = frame.Max.Y + plotMargin
	}
	drawText(img, plotMargin, y, "0 S", colText)
	right := fmt.Sprintf("%s S", num(end))
	drawText(img, width-plotMargin-textWidth(right), y, right, colText)
	return png.Encode(w, img)
}

// seriesRange returns the smallest and largest sampled value of series i.
func seriesRange(samples []sample, i int) (lo, hi float64, ok bool) {
	for _, sm := range samples {
		if !sm.ok[i] {
			continue
		}
		if !ok {
			lo, hi, ok = sm.values[i], sm.values[i], true
		}
		lo, hi = min(lo, sm.values[i]), max(hi, sm.values[i])
	}
	return lo, hi, ok
}

// plotSeries draws series i as a polyline in r. A constant series is a
// line across the middle.
func plotSeries(img *image.RGBA, r image.Rectangle, samples []sample, i int, lo, hi, end float64) {
	xOf := func(sec float64) int {
		if end <= 0 {
			return r.Min.X
		}
		return r.Min.X + int(sec/end*float64(r.Dx()-1)+0.5)
	}
	yOf := func(v float64) int {
		if hi == lo {
			return r.Min.Y + r.Dy()/2
		}
		return r.Max.Y - 1 - int((v-lo)/(hi-lo)*float64(r.Dy()-1)+0.5)
	}
	havePrev := false
	var px, py int
	for _, sm := range samples {
		if !sm.ok[i] {
			continue
		}
		x, y := xOf(sm.at.Seconds()), yOf(sm.values[i])
		if havePrev {
			drawLine(img, px, py, x, y, colLine)
		} else {
			img.Set(x, y, colLine)
		}
		px, py, havePrev = x, y, true
	}
}

// drawLine draws a one-pixel line (Bresenham).
func drawLine(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		img.Set(x0, y0, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else {
			e += dx
			y0 += sy
		}
	}
}

func drawRect(img *image.RGBA, r image.Rectangle, c color.Color) {
	drawLine(img, r.Min.X, r.Min.Y, r.Max.X-1, r.Min.Y, c)
	drawLine(img, r.Min.X, r.Max.Y-1, r.Max.X-1, r.Max.Y-1, c)
	drawLine(img, r.Min.X, r.Min.Y, r.Min.X, r.Max.Y-1, c)
	drawLine(img, r.Max.X-1, r.Min.Y, r.Max.X-1, r.Max.Y-1, c)
}

func abs(v int) int { return max(v, -v) }

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// num formats a label value: whole numbers as such, others with one
// decimal.
func num(v float64) string {
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// font is a 3×5 pixel font of the characters labels use: five rows of
// three, "#" for a set pixel. Unknown characters are blank.
var font = map[rune]string{
	'0': "### #.# #.# #.# ###", '1': ".#. ##. .#. .#. ###", '2': "### ..# ### #.. ###", '3': "### ..# ### ..# ###",
	'4': "#.# #.# ### ..# ..#", '5': "### #.. ### ..# ###", '6': "### #.. ### #.# ###", '7': "### ..# ..# ..# ..#",
	'8': "### #.# ### #.# ###", '9': "### #.# ### ..# ###", '.': "... ... ... ... .#.", '-': "... ... ### ... ...",
	'A': ".#. #.# ### #.# #.#", 'B': "##. #.# ##. #.# ##.", 'C': ".## #.. #.. #.. .##", 'D': "##. #.# #.# #.# ##.",
	'E': "### #.. ##. #.. ###", 'F': "### #.. ##. #.. #..", 'G': ".## #.. #.# #.# .##", 'H': "#.# #.# ### #.# #.#",
	'I': "### .#. .#. .#. ###", 'L': "#.. #.. #.. #.. ###", 'M': "#.# ### ### #.# #.#", 'N': "##. #.# #.# #.# #.#",
	'O': ".#. #.# #.# #.# .#.", 'P': "##. #.# ##. #.. #..", 'R': "##. #.# ##. #.# #.#", 'S': ".## #.. .#. ..# ##.",
	'T': "### .#. .#. .#. .#.", 'U': "#.# #.# #.# #.# ###", 'W': "#.# #.# ### ### #.#", 'X': "#.# #.# .#. #.# #.#",
}

// glyphAdvance is the width of one character with its spacing.
const glyphAdvance = 4 * glyphScale

func textWidth(s string) int { return len(s) * glyphAdvance }

// drawText draws s with its top left corner at (x, y).
func drawText(img *image.RGBA, x, y int, s string, c color.Color) {
	for _, r := range s {
		g := strings.ReplaceAll(font[r], " ", "")
		for k, p := range g {
			if p != '#' {
				continue
			}
			px, py := x+(k%3)*glyphScale, y+(k/3)*glyphScale
			draw.Draw(img, image.Rect(px, py, px+glyphScale, py+glyphScale), &image.Uniform{c}, image.Point{}, draw.Src)
		}
		x += glyphAdvance
	}
}
