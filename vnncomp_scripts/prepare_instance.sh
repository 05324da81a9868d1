#!/usr/bin/env bash
# VNN-COMP prepare_instance.sh for symrel.
#   prepare_instance.sh v1 CATEGORY ONNX VNNLIB
# symrel needs no per-instance preparation (it reads the network and the property itself, exactly,
# in run_instance.sh) and uses no per-category settings: this script checks the call and that
# symrel can be run, and does no analysis. It stops no process (it is not its business to end
# other people's work on the machine).
# Exit 0 ready; 1 wrong version string or number of arguments; 2 a file missing or unreadable;
# 3 symrel cannot be imported (install_tool.sh not run?). Every category is accepted: an
# instance symrel cannot read ends as `error` in run_instance.sh.
set -u

VERSION_STRING=v1
if [ "$#" -ne 4 ] || [ "$1" != "$VERSION_STRING" ]; then
	echo "prepare_instance.sh: expected '$VERSION_STRING' CATEGORY ONNX VNNLIB, got '$*'" >&2
	exit 1
fi
CATEGORY=$2
ONNX_FILE=$3
VNNLIB_FILE=$4

echo "Preparing symrel for category '$CATEGORY', onnx file '$ONNX_FILE', vnnlib file '$VNNLIB_FILE'"

for f in "$ONNX_FILE" "$VNNLIB_FILE"; do
	if [ ! -r "$f" ]; then
		echo "prepare_instance.sh: cannot read '$f'" >&2
		exit 2
	fi
done

TOOL_DIR=$(dirname "$(dirname "$(realpath "$0")")")
PY="${VNNCOMP_PYTHON_PATH:+$VNNCOMP_PYTHON_PATH/}python3"
if ! PYTHONPATH="$TOOL_DIR${PYTHONPATH:+:$PYTHONPATH}" "$PY" -c 'import symrel' 2>/dev/null; then
	echo "prepare_instance.sh: '$PY' cannot import symrel (run install_tool.sh v1 first)" >&2
	exit 3
fi
exit 0
