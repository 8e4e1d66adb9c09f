# Shell functions shared by the bench scripts (sourced, not run).

# newest_cli ROOT: the most recently built ROOT/build*/app/lowerscope-cli, or nothing when there is none.
newest_cli() {
    local c best=""
    for c in "$1"/build*/app/lowerscope-cli; do
        if [ -x "$c" ] && { [ -z "$best" ] || [ "$c" -nt "$best" ]; }; then best=$c; fi
    done
    printf '%s' "$best"
}
