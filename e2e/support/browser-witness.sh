#!/bin/sh
# Playwright launches this instead of Chromium (support/browser-witness.ts sets it up): it runs
# $E2E_CHROMIUM with the arguments it got and appends Chromium's stderr (its log, with
# --enable-logging=stderr, and a crash's stack dump) to $E2E_CHROMIUM_LOG, then one line saying how
# the browser process ended. That line is what a bare "browser has been closed" never tells: a
# clean exit, a crash (SIGSEGV, SIGTRAP from a failed CHECK) or a kill from outside (SIGKILL, SIGTERM).
# Chromium is a child, not exec'd, so the shell is there to see its status (its pid is the one in
# the log lines' [pid:tid:time] prefixes); Playwright still talks to it over the inherited pipes
# (fd 3 and 4) and kills the whole process group when it must.
# Named without "chromium" so that a `pkill chromium` elsewhere does not take the witness down too.
"$E2E_CHROMIUM" "$@" 2>>"$E2E_CHROMIUM_LOG" &
pid=$!
wait "$pid"
status=$?
at=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
if [ "$status" -gt 128 ]; then
  how="killed by signal $((status - 128)) (SIG$(kill -l $((status - 128))))"
else
  how="exit status $status"
fi
echo "[browser-witness $at] Chromium's browser process $pid ended: $how" >>"$E2E_CHROMIUM_LOG"
# a launch that fails shows its reason in Playwright's error, as without the witness
[ "$status" -ne 0 ] && tail -n 30 "$E2E_CHROMIUM_LOG" >&2
exit "$status"
