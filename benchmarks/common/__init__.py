"""What several benchmarks share: the checkout's paths, and the right/wrong pairs' token experiments."""
