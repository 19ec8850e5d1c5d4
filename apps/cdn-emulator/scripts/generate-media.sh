#!/bin/sh
# Regenerates the HLS test media in media/vod (committed: tests and `npm start` need no ffmpeg).
# Needs ffmpeg (Debian: apt-get install -y ffmpeg). Deterministic apart from encoder versions.
#
#   v0  256x144  ~60 kbit/s H.264 baseline + 24 kbit/s AAC, clear
#   v1  426x240 ~120 kbit/s H.264 baseline + 24 kbit/s AAC, AES-128 (key.bin, a fixed TEST key)
#   2-second segments (keyframe every 50 frames at 25 fps), 80 seconds: VOD tests play >= 70 s.
# and its DASH rendition beside master.m3u8 (the same token covers both):
#   manifest.mpd  static, SegmentTemplate with $Number$ (40 segments each), dash/ holding fMP4:
#                 init-{0,1,2}.m4s, chunk-{0,1,2}-{001..040}.m4s
#   0  256x144  ~60 kbit/s H.264 baseline    1  384x216 ~120 kbit/s (one aspect ratio per set)    2  AAC 24 kbit/s mono 48 kHz
#   The audio is 80 s less the encoder's priming frame (1024 samples), so that it, too, is exactly
#   40 segments and 80 s of decode time: the origin's live DASH loops it with no gap or overlap.
set -eu
cd "$(dirname "$0")/.."
OUT=media/vod
SECONDS_LONG=80
rm -rf "$OUT" && mkdir -p "$OUT/v0" "$OUT/v1"

# A fixed, public test key and IV: these fixtures protect nothing.
printf '\000\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017' > "$OUT/v1/key.bin"
printf 'key.bin\n%s\n000102030405060708090a0b0c0d0e0f\n' "$OUT/v1/key.bin" > "$OUT/keyinfo"

encode() { # name width height video-bitrate [extra hls options]
  name=$1 width=$2 height=$3 rate=$4
  shift 4
  ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "testsrc2=size=${width}x${height}:rate=25" \
    -f lavfi -i "sine=frequency=440:sample_rate=44100" \
    -t "$SECONDS_LONG" -map 0:v -map 1:a \
    -c:v libx264 -profile:v baseline -level 3.0 -pix_fmt yuv420p \
    -b:v "$rate" -maxrate "$rate" -bufsize "$rate" -g 50 -keyint_min 50 -sc_threshold 0 \
    -c:a aac -b:a 24k -ac 1 \
    -f hls -hls_time 2 -hls_playlist_type vod -hls_segment_filename "$OUT/$name/seg_%03d.ts" \
    "$@" "$OUT/$name/index.m3u8"
}
encode v0 256 144 60k
encode v1 426 240 120k -hls_key_info_file "$OUT/keyinfo"
rm "$OUT/keyinfo"

# DASH: one encode, both video Representations from one source (square pixels) and the audio
mkdir -p "$OUT/dash"
ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "testsrc2=size=384x216:rate=25" \
  -f lavfi -i "sine=frequency=440:sample_rate=48000" \
  -filter_complex "[0:v]split=2[a][b];[a]scale=256:144,setsar=1[v0];[b]setsar=1[v1];[1:a]atrim=end_sample=$((SECONDS_LONG * 48000 - 1024))[a0]" \
  -t "$SECONDS_LONG" -map '[v0]' -map '[v1]' -map '[a0]' \
  -c:v libx264 -profile:v baseline -level 3.0 -pix_fmt yuv420p -g 50 -keyint_min 50 -sc_threshold 0 \
  -b:v:0 60k -maxrate:v:0 60k -bufsize:v:0 60k -b:v:1 120k -maxrate:v:1 120k -bufsize:v:1 120k \
  -c:a aac -b:a 24k -ac 1 \
  -f dash -seg_duration 2 -use_template 1 -use_timeline 0 \
  -adaptation_sets "id=0,streams=v id=1,streams=a" \
  -init_seg_name 'dash/init-$RepresentationID$.m4s' \
  -media_seg_name 'dash/chunk-$RepresentationID$-$Number%03d$.m4s' \
  "$OUT/manifest.mpd"

cat > "$OUT/master.m3u8" <<'M3U8'
#EXTM3U
#EXT-X-VERSION:3
#EXT-X-STREAM-INF:BANDWIDTH=110000,AVERAGE-BANDWIDTH=90000,RESOLUTION=256x144,CODECS="avc1.42c01e,mp4a.40.2"
v0/index.m3u8
#EXT-X-STREAM-INF:BANDWIDTH=190000,AVERAGE-BANDWIDTH=150000,RESOLUTION=426x240,CODECS="avc1.42c01e,mp4a.40.2"
v1/index.m3u8
M3U8
du -sh "$OUT"
