#!/usr/bin/env bash
# VNN-COMP run_instance.sh for symrel.
#   run_instance.sh v1 CATEGORY ONNX VNNLIB RESULTS_FILE TIMEOUT
# Decides the instance with `symrel verify ONNX VNNLIB --timeout TIMEOUT` and writes RESULTS_FILE
# as the competition reads it (first line the result; the 2021 scorer maps unsat to holds and sat
# to violated, the 2022 harness keeps the lines after `sat` as the counterexample):
#   unsat     no input of the region is unsafe; symrel's certificate was checked by its trusted
#             checker before this was written
#   sat       followed by the counterexample ((X_0 v) ... (Y_0 v) ...): an exact input of the
#             region and the exact outputs there (decimals; exact whenever they have a finite
#             decimal expansion, as every float does)
#   timeout   TIMEOUT seconds passed (symrel's own limit, or this script stopped it TIMEOUT + 2 s
#             after the start)
#   unknown   symrel stopped at another limit (the trusted checker's size limits), named on stderr
#   error     symrel could not take the instance (exit 2: a network or property it does not read,
#             named on stderr) or failed
# The script exits 0 whenever RESULTS_FILE was written, so that the harness reads it; 1 for a
# wrong version string or number of arguments. CATEGORY is printed and otherwise unused (one
# setting for every benchmark).
# The search runs on a pool of one process per usable core (`--executor processes:N`, N > 1);
# SYMREL_EXECUTOR overrides it (e.g. serial). SYMREL_CERTIFICATE_DIR, when set, keeps each
# unsat certificate there as ONNXSTEM_VNNLIBSTEM.json. VNNCOMP_PYTHON_PATH may name the folder
# of the python3 to use.
set -u

VERSION_STRING=v1
if [ "$#" -ne 6 ] || [ "$1" != "$VERSION_STRING" ]; then
	echo "run_instance.sh: expected '$VERSION_STRING' CATEGORY ONNX VNNLIB RESULTS_FILE TIMEOUT, got '$*'" >&2
	exit 1
fi
CATEGORY=$2
ONNX_FILE=$3
VNNLIB_FILE=$4
RESULTS_FILE=$5
TIMEOUT=$6

echo "Running symrel on category '$CATEGORY', onnx file '$ONNX_FILE', vnnlib file '$VNNLIB_FILE'," \
     "results file '$RESULTS_FILE', timeout $TIMEOUT s"

TOOL_DIR=$(dirname "$(dirname "$(realpath "$0")")")
PY="${VNNCOMP_PYTHON_PATH:+$VNNCOMP_PYTHON_PATH/}python3"
export PYTHONPATH="$TOOL_DIR${PYTHONPATH:+:$PYTHONPATH}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1  # the pool is the parallelism

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/symrel-vnncomp.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

# a result, written whole: the harness never sees half a file
write_result() {
	cat > "$SCRATCH/result" && mv -f "$SCRATCH/result" "$RESULTS_FILE"
}
rm -f "$RESULTS_FILE"

# compressed benchmark files (the harness unpacks .onnx.gz itself; a .vnnlib.gz it does not)
for name in ONNX_FILE VNNLIB_FILE; do
	path=${!name}
	if [[ "$path" == *.gz ]]; then
		plain="$SCRATCH/$(basename "${path%.gz}")"
		if ! gzip -dc "$path" > "$plain"; then
			echo "run_instance.sh: cannot unpack '$path'" >&2
			echo error | write_result
			exit 0
		fi
		printf -v "$name" '%s' "$plain"
	fi
done

# the hard stop, 2 s after the limit: an answer later than TIMEOUT does not count
if ! HARD_STOP=$(awk -v t="$TIMEOUT" 'BEGIN { if (t + 0 > 0) printf "%.3f", t + 2; else exit 1 }'); then
	echo "run_instance.sh: expected a positive TIMEOUT in seconds, got '$TIMEOUT'" >&2
	echo error | write_result
	exit 0
fi

EXECUTOR=${SYMREL_EXECUTOR:-}
if [ -z "$EXECUTOR" ]; then
	CORES=$(nproc 2>/dev/null || echo 1)
	if [ "$CORES" -gt 1 ]; then EXECUTOR="processes:$CORES"; else EXECUTOR=serial; fi
fi

EXTRA=()
if [ -n "${SYMREL_CERTIFICATE_DIR:-}" ]; then
	mkdir -p "$SYMREL_CERTIFICATE_DIR"
	stem="$(basename "${ONNX_FILE%.onnx}")_$(basename "${VNNLIB_FILE%.vnnlib}")"
	EXTRA+=(--certificate "$SYMREL_CERTIFICATE_DIR/$stem.json")
fi

timeout --kill-after=3 "$HARD_STOP" "$PY" -m symrel verify "$ONNX_FILE" "$VNNLIB_FILE" \
	--timeout "$TIMEOUT" --executor "$EXECUTOR" --no-progress --json \
	--counterexample "$SCRATCH/counterexample.txt" ${EXTRA[@]+"${EXTRA[@]}"} > "$SCRATCH/verdict.json"
CODE=$?

# one field of symrel's --json verdict (empty when absent)
verdict_field() {
	"$PY" -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' \
		"$SCRATCH/verdict.json" "$1" 2>/dev/null
}

case $CODE in
	0)
		echo unsat | write_result ;;
	1)
		if [ -s "$SCRATCH/counterexample.txt" ]; then
			write_result < "$SCRATCH/counterexample.txt"
			if [ "$(verdict_field onnxruntime_check)" = "False" ]; then
				echo "run_instance.sh: the counterexample holds exactly but fails the competition's float check" \
				     "(onnxruntime's outputs differ from the exact ones by more than its tolerance)" >&2
			fi
		else
			echo "run_instance.sh: symrel answered sat without writing its counterexample" >&2
			echo error | write_result
		fi ;;
	3)
		# which limit: the time (timeout) or another one (unknown), from the --json verdict
		LIMIT=$(verdict_field limit)
		echo "symrel stopped at the limit: ${LIMIT:-not named}" >&2
		if [[ "$LIMIT" == *time* ]]; then echo timeout | write_result; else echo unknown | write_result; fi ;;
	124|137)
		echo "run_instance.sh: symrel did not answer within $TIMEOUT s; stopped" >&2
		echo timeout | write_result ;;
	*)
		echo "run_instance.sh: symrel exited with code $CODE" >&2
		echo error | write_result ;;
esac
echo "symrel: $(head -n 1 "$RESULTS_FILE")"
exit 0
