"""Exact verification of VNN-LIB properties on layered nets (convolutions, max pooling)."""
