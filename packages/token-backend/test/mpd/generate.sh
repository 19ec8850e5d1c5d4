#!/bin/sh
# Regenerates the MPDs Debian's ffmpeg writes (committed: tests need no ffmpeg). Only the MPDs are
# kept: the session rewriter reads manifests, never media. Needs ffmpeg (apt-get install -y ffmpeg).
#
#   ffmpeg-vod.mpd   80 s VOD, 2-s segments, SegmentTemplate with $Number%05d$, two video
#                    Representations (256x144, 426x240) and one audio
#   ffmpeg-live.mpd  the same as a live stream (-window_size 5 -streaming 1), SegmentTimeline with
#                    $Time$, caught mid-stream (a dynamic MPD)
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

encode() { # seconds output-dir input-pacing [dash options]
  seconds=$1 out=$2 pacing=$3
  shift 3
  # shellcheck disable=SC2086 # the pacing is one option or none
  ffmpeg -hide_banner -loglevel error -y $pacing \
    -f lavfi -i "testsrc2=size=426x240:rate=25" -f lavfi -i "sine=frequency=440:sample_rate=44100" \
    -t "$seconds" -map 0:v -map 0:v -map 1:a \
    -c:v libx264 -profile:v baseline -level 3.0 -pix_fmt yuv420p \
    -b:v:0 60k -s:v:0 256x144 -b:v:1 120k -s:v:1 426x240 -g 50 -keyint_min 50 -sc_threshold 0 \
    -c:a aac -b:a 24k -ac 1 \
    -f dash -seg_duration 2 -use_template 1 -adaptation_sets "id=0,streams=v id=1,streams=a" \
    "$@" "$out/manifest.mpd"
}

mkdir "$work/vod" "$work/live"
encode 80 "$work/vod" "" -use_timeline 0
cp "$work/vod/manifest.mpd" ffmpeg-vod.mpd

# live: copy the MPD while ffmpeg still writes it (at the end it turns it static)
# in real time (-re), so that the window slides
encode 20 "$work/live" -re -use_timeline 1 -window_size 5 -extra_window_size 2 -streaming 1 \
  -media_seg_name 'chunk-$RepresentationID$-$Time$.m4s' &
sleep 15
cp "$work/live/manifest.mpd" ffmpeg-live.mpd
wait
