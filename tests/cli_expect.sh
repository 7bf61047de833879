# cli_expect.sh: the assertion the CLI test scripts share (sourced; they define passed=0 failed=0).
# expect NAME EXIT_CODE REGEX -- command...: runs the command, checks its exit code and that its
# combined output matches REGEX (extended grep).
expect() {
  local name=$1 code=$2 regex=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -eq $code ]] && grep -Eq -- "$regex" <<<"$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $name (exit $rc, wanted $code; wanted /$regex/)"
    echo "$out" | head -20 | sed 's/^/    /'
  fi
}
