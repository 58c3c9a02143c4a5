"""What the engine costs in time and memory, and whether its shortcuts leave the results as they were."""
