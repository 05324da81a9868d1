"""Cross-validation of float implementations (numpy, PyTorch, onnxruntime)
against symrel's exact evaluation, on the same float inputs."""
