#!/bin/sh
# walkthrough.sh WxH [OUT] walks through the window as a new user would, on
# an X server of W by H pixels (Xvfb, Openbox as the window manager), and
# saves a screenshot of the screen at each step into OUT (default
# docs/screenshots) as walkthrough-WxH-N-STEP.png:
#
#   1 start      a first start in a new home: the window fitted to the
#                screen, the user guide indexed
#   2 answer     "how do I add a folder" asked and answered
#   3 followup   "and how do I remove it?": read as a follow-up, marked,
#                with Ask as a new question, the first answer above it
#   4 index      `cairn index` run in a terminal meanwhile: the Index
#                tab's folder list shows the new folder without a run in
#                the window
#   5 engineering the Engineering tab: knobs, Download models…
#   6 sources    in a new conversation (Ctrl+N), a question many passages
#                match: how many matched (More results ends the list)
#
# It prints the window's geometry at each step and fails when the window
# with its decorations does not fit the screen. It needs Xvfb, openbox,
# xdotool, xwd and ImageMagick's convert (Debian: xvfb openbox xdotool
# x11-apps imagemagick), and bin/cairn (make build, or go build -o
# bin/cairn .). Timing is by waiting (the answers are extractive, a
# second or two each on a quiet machine); WAIT=N multiplies the waits on
# a busy one.
set -eu
size=${1:?usage: walkthrough.sh WxH [OUT]}
out=${2:-docs/screenshots}
wait=${WAIT:-1}
w=${size%x*} h=${size#*x}
bin=$(pwd)/bin/cairn
[ -x "$bin" ] || { echo "walkthrough: no $bin: run make build (or go build -o bin/cairn .)" >&2; exit 1; }
for tool in Xvfb openbox xdotool xwd; do
	command -v $tool >/dev/null || { echo "walkthrough: $tool is missing (apt-get install xvfb openbox xdotool x11-apps imagemagick)" >&2; exit 1; }
done
convert=/usr/bin/convert
[ -x $convert ] || convert=convert
mkdir -p "$out"
tmp=$(mktemp -d)
display=:$((60 + $$ % 30))
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
pause() { sleep $(($1 * wait)); }

Xvfb $display -screen 0 "${w}x${h}x24" -nolisten tcp >/dev/null 2>&1 &
pids="$pids $!"
sleep 1
DISPLAY=$display openbox >/dev/null 2>&1 &
pids="$pids $!"
sleep 1

home=$tmp/home
mkdir -p "$home/Documents"
cp -r testdata/corpus/. "$home/Documents/"
# A new home: the window's remembered size (Fyne's preferences) too.
export DISPLAY=$display CAIRN_HOME=$home HOME=$home XDG_CONFIG_HOME=$home/.config
"$bin" >"$tmp/cairn.log" 2>&1 &
pids="$pids $!"
win=$(xdotool search --sync --name '^Cairn' | head -1)
pause 6 # the user guide is indexed on a first start

n=0
shot() {
	n=$((n + 1)) step=$1
	file="$out/walkthrough-$size-$n-$step.png"
	xwd -root -silent | $convert xwd:- -colors 256 "PNG8:$file" # a palette: half the bytes
	# The frame, decorations included, must lie on the screen.
	# xwininfo, not xdotool: xdotool's position counts the title bar twice.
	eval "$(xwininfo -id "$win" | awk '/Absolute upper-left X/ {print "X=" $NF} /Absolute upper-left Y/ {print "Y=" $NF}
		/Width:/ {print "WIDTH=" $NF} /Height:/ {print "HEIGHT=" $NF}')"
	ext=$(xprop -id "$win" _NET_FRAME_EXTENTS | sed 's/.*= //; s/,//g')
	set -- ${ext:-0 0 0 0}
	frame="$((X - $1)) $((Y - $3)) $((WIDTH + $1 + $2)) $((HEIGHT + $3 + $4))"
	echo "$size step $n ($step): window ${WIDTH}x$HEIGHT at $X,$Y; frame (x y w h) $frame; $file"
	set -- $frame
	if [ "${1:-0}" -lt 0 ] || [ "${2:-0}" -lt 0 ] || [ $((${1:-0} + ${3:-0})) -gt "$w" ] || [ $((${2:-0} + ${4:-0})) -gt "$h" ]; then
		echo "walkthrough: the window's frame ($frame) does not fit the ${size} screen" >&2
		exit 1
	fi
}
ask() {
	xdotool key --window "$win" ctrl+l ctrl+a BackSpace
	xdotool type --delay 20 "$1"
	xdotool key Return
	pause "$2"
}
# The tabs' labels, from the window's top left: the menu bar, then the tabs.
tab() { xdotool mousemove --window "$win" "$1" 50 click 1; pause 2; }

shot start
ask "how do I add a folder" 5
shot answer
ask "and how do I remove it?" 5
shot followup
# A terminal's `cairn index` while the window is open.
"$bin" index "$home/Documents" >"$tmp/index.log" 2>&1
pause 5
tab 114
shot index
tab 230
shot engineering
tab 40
xdotool key --window "$win" ctrl+n # a new conversation: the next question follows nothing
pause 1
ask "cairn" 5
shot sources
xdotool key --window "$win" ctrl+q
pause 2
echo "walkthrough: $n screenshots in $out"
