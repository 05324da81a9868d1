#!/usr/bin/env bash
# VNN-COMP install_tool.sh for symrel.
#   install_tool.sh v1
# Installs symrel from this checkout (the folder above vnncomp_scripts/) with what `symrel verify`
# needs: onnx and onnxruntime (the .onnx reader and the competition's float check), numpy and
# scipy (the search's float proposals) and python-flint / gmpy2 (fast exact rationals).
# Python 3.10 or newer is required; VNNCOMP_PYTHON_PATH may name the folder of the python3 to use.
# Exit 0 installed; 1 wrong version string or arguments; 2 no suitable Python; else pip's failure.
set -u

VERSION_STRING=v1
if [ "$#" -ne 1 ] || [ "$1" != "$VERSION_STRING" ]; then
	echo "install_tool.sh: expected one argument, the version string '$VERSION_STRING', got '$*'" >&2
	exit 1
fi

TOOL_DIR=$(dirname "$(dirname "$(realpath "$0")")")
PY="${VNNCOMP_PYTHON_PATH:+$VNNCOMP_PYTHON_PATH/}python3"

if ! command -v "$PY" >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO="sudo -n"
	$SUDO apt-get update -qq && $SUDO apt-get install -y -qq python3 python3-pip python3-venv
fi
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
	echo "install_tool.sh: symrel needs Python 3.10 or newer; '$PY' is $("$PY" --version 2>&1 || echo missing)" \
	     "(set VNNCOMP_PYTHON_PATH to the folder of a newer python3)" >&2
	exit 2
fi

echo "Installing symrel from $TOOL_DIR with $("$PY" --version 2>&1)"
"$PY" -m pip install --upgrade "$TOOL_DIR[onnx,numeric,fast]" || exit $?
"$PY" -m symrel --version
