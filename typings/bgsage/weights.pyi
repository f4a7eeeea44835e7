# bgsage's weight files and bear-off database, as games/bots/deep.py reads them.

from dataclasses import dataclass

@dataclass
class WeightConfig:
    purerace: str
    racing: str
    attacking: str
    priming: str
    anchoring: str
    n_hidden_purerace: int = 200
    n_hidden_racing: int = 400
    n_hidden_attacking: int = 400
    n_hidden_priming: int = 400
    n_hidden_anchoring: int = 400
    strategy_type: str = "5nn"
    @property
    def weight_paths_list(self) -> list[str]: ...
    @property
    def hidden_sizes_list(self) -> list[int]: ...

@dataclass
class WeightConfigPair:
    paths: list[str]
    hiddens: list[int]
    strategy_type: str = "pair"
    @property
    def weight_paths_list(self) -> list[str]: ...
    @property
    def hidden_sizes_list(self) -> list[int]: ...

def default_weights() -> WeightConfig | WeightConfigPair: ...
def bearoff_db_path() -> str | None: ...
