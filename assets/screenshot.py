#!/usr/bin/env python3
"""Render the README screenshot assets/screenshot-deals.png.

How to regenerate (from the repository root):

    cargo build                       # produces target/debug/crmdash
    pip install pyte pillow fonttools
    apt-get install -y fonts-dejavu-core fonts-noto-cjk fonts-noto-core
    python3 assets/screenshot.py

This starts `crmdash --demo` in a private tmux server (120x32, 256 colours,
throw-away XDG dirs under /tmp), switches to the Deals tab (`2`), cycles the
sort key to "value" (`s` until the title says "sort value"), captures the pane
with ANSI escapes (`tmux capture-pane -e -p`), quits, and renders the capture
cell by cell with Pillow:

* pyte interprets the escapes into a 120x32 grid (colours, bold, reverse);
* one cell = fixed width; wide (CJK) characters span two cells;
* glyphs DejaVu Sans Mono lacks (CJK, Hangul, Devanagari) come from Noto
  fallback fonts, chosen per glyph via the font's cmap;
* text is drawn per cell in logical order, like tmux / most terminals do
  (no bidi reordering for Arabic).

Options:
    --capture FILE   render an existing `capture-pane -e -p` dump instead of
                     running crmdash
    --save-capture FILE   also keep the raw capture
    --view pipeline  press P on the Deals tab, select the EUR bar and capture the
                     pipeline view
    --view timeline  press T (the Projects tab's timeline) and capture it
                     (default: the Deals table sorted by value)
    --out FILE       output PNG (default: assets/screenshot-<view>.png)
    --bin FILE       crmdash binary (default: target/debug/crmdash)
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
import unicodedata

import pyte
import pyte.screens
from fontTools.ttLib import TTFont
from PIL import Image, ImageDraw, ImageFont

COLS, ROWS = 120, 32
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

FONT_SIZE = 15
PAD = 14
BG = (24, 24, 27)
FG = (212, 212, 216)

# Basic ANSI colours (pyte names); 256-colour/truecolour come as hex strings.
ANSI = {
    "black": (0, 0, 0), "red": (205, 49, 49), "green": (13, 188, 121),
    "brown": (229, 229, 16), "blue": (36, 114, 200), "magenta": (188, 63, 188),
    "cyan": (17, 168, 205), "white": (229, 229, 229),
    "brightblack": (102, 102, 102), "brightred": (241, 76, 76),
    "brightgreen": (35, 209, 139), "brightbrown": (245, 245, 67),
    "brightblue": (59, 142, 234), "brightmagenta": (214, 112, 214),
    "brightcyan": (41, 184, 219), "brightwhite": (255, 255, 255),
}
# Palette entries 0-15 of a 256-colour escape (38;5;N) are the same ANSI colours.
ANSI16 = ["black", "red", "green", "brown", "blue", "magenta", "cyan", "white"]
ANSI16 += ["bright" + c for c in ANSI16]
PYTE256 = {c.lower(): i for i, c in enumerate(pyte.graphics.FG_BG_256)}

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
DEJAVU_B = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
NOTO = "/usr/share/fonts/truetype/noto/"
CJK = "/usr/share/fonts/opentype/noto/"
# (regular path, bold path, ttc index) in order of preference.
FALLBACKS = [
    (NOTO + "NotoSansDevanagari-Regular.ttf", NOTO + "NotoSansDevanagari-Bold.ttf", 0),
    (NOTO + "NotoSansArabic-Regular.ttf", NOTO + "NotoSansArabic-Bold.ttf", 0),
    (CJK + "NotoSansCJK-Regular.ttc", CJK + "NotoSansCJK-Bold.ttc", 0),  # JP
    ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
     "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", 0),
]


def cell_width(ch):
    """Column width as ratatui (unicode-width) and tmux (glibc) see it.

    The python `wcwidth` package treats spacing marks (Mc, e.g. Devanagari
    U+093E) as zero-width, which would shift the rest of such a row; the app and
    tmux give them one column, so do the same.
    """
    if unicodedata.category(ch) == "Mc":
        return 1
    return _wcwidth(ch)


_wcwidth = pyte.screens.wcwidth
pyte.screens.wcwidth = cell_width


def capture(binary, save=None, view="deals"):
    sock = "crmdash-shot-%d" % os.getpid()
    tmp = tempfile.mkdtemp(prefix="crmdash-shot-")
    env = ("env TERM=xterm-256color XDG_DATA_HOME=%s/data XDG_CONFIG_HOME=%s/config "
           "XDG_CACHE_HOME=%s/cache XDG_STATE_HOME=%s/state" % (tmp, tmp, tmp, tmp))
    tm = ["tmux", "-L", sock]

    def keys(*k):
        subprocess.run(tm + ["send-keys", "-t", "s"] + list(k), check=True)

    def pane(esc=False):
        args = ["capture-pane", "-p", "-t", "s"] + (["-e"] if esc else [])
        return subprocess.run(tm + args, check=True, capture_output=True, text=True).stdout

    subprocess.run(tm + ["new-session", "-d", "-s", "s", "-x", str(COLS), "-y", str(ROWS),
                         "%s %s --demo" % (env, binary)], check=True)
    try:
        time.sleep(2.5)
        if view == "timeline":
            keys("T")
            for _ in range(20):
                time.sleep(1)
                if " projects · " in pane():
                    break
            else:
                sys.exit("the timeline view did not show")
            time.sleep(1)
            subprocess.run(tm + ["resize-window", "-t", "s", "-x", str(COLS - 1)], check=True)
            time.sleep(0.5)
            subprocess.run(tm + ["resize-window", "-t", "s", "-x", str(COLS)], check=True)
            time.sleep(1)
            out = pane(esc=True)
            keys("q")
            time.sleep(0.5)
            if save:
                with open(save, "w") as f:
                    f.write(out)
            return out
        keys("2")
        time.sleep(2)
        if view == "pipeline":
            keys("P")
            for _ in range(20):
                time.sleep(1)
                if "never summed" in pane():
                    break
            else:
                sys.exit("the pipeline view did not finish reading")
            keys("j", "j")  # open EUR: the seed's busiest currency, for the monthly chart
            time.sleep(0.5)
            # A resize makes the dashboard redraw the whole screen, so no cell of the table
            # that tmux measured differently (Devanagari) lingers under the chart.
            subprocess.run(tm + ["resize-window", "-t", "s", "-x", str(COLS - 1)], check=True)
            time.sleep(0.5)
            subprocess.run(tm + ["resize-window", "-t", "s", "-x", str(COLS)], check=True)
            time.sleep(1)
            out = pane(esc=True)
            keys("q")
            time.sleep(0.5)
            if save:
                with open(save, "w") as f:
                    f.write(out)
            return out
        for _ in range(8):
            if "sort value" in pane().splitlines()[1]:
                break
            keys("s")
            time.sleep(1.5)
        else:
            sys.exit("could not get the Deals table sorted by value")
        time.sleep(1)
        out = pane(esc=True)
        keys("q")
        time.sleep(0.5)
    finally:
        subprocess.run(tm + ["kill-server"], capture_output=True)
    if save:
        with open(save, "w") as f:
            f.write(out)
    return out


BOX = {  # light box drawing: (up, down, left, right)
    "\u2500": (0, 0, 1, 1), "\u2502": (1, 1, 0, 0), "\u250c": (0, 1, 0, 1),
    "\u2510": (0, 1, 1, 0), "\u2514": (1, 0, 0, 1), "\u2518": (1, 0, 1, 0),
    "\u251c": (1, 1, 0, 1), "\u2524": (1, 1, 1, 0), "\u252c": (0, 1, 1, 1),
    "\u2534": (1, 0, 1, 1), "\u253c": (1, 1, 1, 1),
}


def draw_box(draw, ch_, x0, y0, w, h, fill):
    """Draw box-drawing lines edge to edge so borders join between rows."""
    up, down, left, right = BOX[ch_]
    cx, cy = x0 + w // 2, y0 + h // 2
    if left:
        draw.line([x0, cy, cx, cy], fill=fill)
    if right:
        draw.line([cx, cy, x0 + w - 1, cy], fill=fill)
    if up:
        draw.line([cx, y0, cx, cy], fill=fill)
    if down:
        draw.line([cx, cy, cx, y0 + h - 1], fill=fill)


def is_indic(text):
    return 0x0900 <= ord(text[0]) <= 0x0DFF


def colour(name, default):
    if name == "default":
        return default
    if name in ANSI:
        return ANSI[name]
    idx = PYTE256.get(name.lower())
    if idx is not None and idx < 16:
        return ANSI[ANSI16[idx]]
    return tuple(int(name[i:i + 2], 16) for i in (0, 2, 4))


class Fonts:
    def __init__(self):
        self.main = [ImageFont.truetype(DEJAVU, FONT_SIZE), ImageFont.truetype(DEJAVU_B, FONT_SIZE)]
        self.main_cmap = TTFont(DEJAVU).getBestCmap()
        self.fb = []
        for reg, bold, idx in FALLBACKS:
            if not os.path.exists(reg):
                continue
            cmap = TTFont(reg, fontNumber=idx).getBestCmap()
            fonts = [ImageFont.truetype(reg, FONT_SIZE, index=idx,
                                        layout_engine=ImageFont.Layout.RAQM)]
            fonts.append(ImageFont.truetype(bold if os.path.exists(bold) else reg, FONT_SIZE,
                                            index=idx, layout_engine=ImageFont.Layout.RAQM))
            self.fb.append((cmap, fonts))
        self.cw = round(self.main[0].getlength("M"))
        asc, desc = self.main[0].getmetrics()
        self.ch = asc + desc + 2
        self.baseline = asc + 1
        self.missing = set()

    def pick(self, text, bold):
        base = text[0]
        if ord(base) in self.main_cmap and all(ord(c) in self.main_cmap for c in text):
            return self.main[bold], True
        for cmap, fonts in self.fb:
            if ord(base) in cmap:
                return fonts[bold], False
        self.missing.add(base)
        return self.main[bold], True


def render(ansi, out):
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.Stream(screen)
    # capture-pane separates rows with bare \n; make it a CR+LF for the emulator. Zero-width
    # spaces (crmdash splits Devanagari clusters into one cell each with them; terminals draw
    # nothing for them) are dropped: pyte mishandles them.
    ansi = ansi.replace("\u200b", "")
    stream.feed(ansi.rstrip("\n").replace("\n", "\r\n"))

    fonts = Fonts()
    cw, ch = fonts.cw, fonts.ch
    img = Image.new("RGB", (COLS * cw + 2 * PAD, ROWS * ch + 2 * PAD), BG)
    draw = ImageDraw.Draw(img)

    for y in range(ROWS):
        line = screen.buffer[y]
        # Backgrounds first so wide / overhanging glyphs are not clipped by neighbours.
        for x in range(COLS):
            c = line[x]
            fg, bg = colour(c.fg, FG), colour(c.bg, BG)
            if c.reverse:
                fg, bg = bg, fg
            if bg != BG:
                x0, y0 = PAD + x * cw, PAD + y * ch
                draw.rectangle([x0, y0, x0 + cw - 1, y0 + ch - 1], fill=bg)
        x = -1
        while x + 1 < COLS:
            x += 1
            c = line[x]
            if not c.data or c.data == " ":
                continue  # blank, or the right half of a wide character
            fg, bg = colour(c.fg, FG), colour(c.bg, BG)
            if c.reverse:
                fg, bg = bg, fg
            span = 2 if x + 1 < COLS and line[x + 1].data == "" else 1
            if c.data in BOX:
                draw_box(draw, c.data, PAD + x * cw, PAD + y * ch, cw, ch, fg)
                continue
            x0, base = PAD + x * cw, PAD + y * ch + fonts.baseline
            if is_indic(c.data):
                # Shape a run of Indic cells together (conjuncts, spacing marks),
                # as a shaping terminal would; it still occupies exactly its cells.
                text = c.data
                while x + span < COLS and line[x + span].data and is_indic(line[x + span].data):
                    text += line[x + span].data
                    span += 1
                c = c._replace(data=text)
                x += span - 1  # the run's cells are drawn now
            font, is_main = fonts.pick(c.data, 1 if c.bold else 0)
            if is_main:
                draw.text((x0, base), c.data, font=font, fill=fg, anchor="ls")
                continue
            # Fallback glyph: centre it in its span, shrink if it is wider.
            width = font.getlength(c.data)
            if width > span * cw * 1.05:
                font = font.font_variant(size=max(8, int(FONT_SIZE * span * cw / width)))
                width = font.getlength(c.data)
            draw.text((x0 + (span * cw - width) / 2, base), c.data, font=font,
                      fill=fg, anchor="ls")

    if fonts.missing:
        print("no font for:", " ".join("U+%04X" % ord(c) for c in sorted(fonts.missing)),
              file=sys.stderr)
    img = img.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    img.save(out, optimize=True)
    print("%s: %dx%d, %d bytes" % (out, img.width, img.height, os.path.getsize(out)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--capture")
    ap.add_argument("--save-capture")
    ap.add_argument("--view", choices=["deals", "pipeline", "timeline"], default="deals")
    ap.add_argument("--out")
    ap.add_argument("--bin", default=os.path.join(REPO, "target", "debug", "crmdash"))
    a = ap.parse_args()
    if a.capture:
        with open(a.capture) as f:
            ansi = f.read()
    else:
        ansi = capture(a.bin, a.save_capture, a.view)
    render(ansi, a.out or os.path.join(HERE, "screenshot-%s.png" % a.view))


if __name__ == "__main__":
    main()
