from wtcp._core import __version__, ScenarioError, SimulationError
