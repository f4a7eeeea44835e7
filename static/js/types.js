// The shapes the browser code passes around, for the type checker only
// (jsconfig.json): a module names them in a JSDoc type import, `@import`
// the names from this file's path, then `@param {Model} model`. No page loads
// this file. (collectstatic reads a path in parentheses after "import" as a
// module to hash, comments included: write none here.)
//
// The room state and the steps follow the server's TypedDicts
// (games/selectors/board.py and the modules it names; docs/API.md says
// what each key means): a change there is a change here.

// --- the room state: GET /api/rooms/<slug>/ --------------------------------------

/** A side of the table: 0 plays the bottle caps, 1 the tyres. @typedef {number} Side */

/** @typedef {"opening" | "roll" | "doubled" | "move" | "resign_offered" | "game_over" | "match_over"} Phase */
/** @typedef {"single" | "match" | "session"} Format */
/** @typedef {"won" | "stop" | "resign" | "absence"} EndReason */

/**
 * What a Turn row records (games.engine.ActionKind).
 * @typedef {"roll" | "double" | "take" | "drop" | "beaver" | "play" | "resign_offer"
 *   | "resign_accept" | "resign_decline" | "forfeit" | "next_game" | "stop"
 *   | "cond_answer" | "cond_plays"} TurnKind
 */

/**
 * An action a seat may send (match.allowed, POST .../actions/<action>): the
 * engine's kinds and the site's own (games.lib.site_actions.SiteAction).
 * @typedef {TurnKind | "claim_absence" | "keep_waiting" | "rematch_offer" | "rematch_accept"
 *   | "cond_greedy"} ActionName
 */

/**
 * @typedef {object} RoomInfo
 * @property {string} slug
 * @property {string} status
 * @property {Record<string, unknown>} rules  MatchRules.to_json(), as stored
 * @property {boolean} rated
 * @property {string | null} bot
 * @property {string | null} last_move_at
 * @property {number} days_per_move  how long a turn may take before the other may claim it
 */

/**
 * @typedef {object} ViewerInfo
 * @property {number | null} seat
 * @property {Side | null} side  null for a spectator
 */

/**
 * @typedef {object} SeatInfo
 * @property {number} number
 * @property {string} nickname
 * @property {boolean} is_bot
 * @property {boolean} is_you
 * @property {Side | null} side
 * @property {string | null} away_until
 */

/**
 * @typedef {object} CubeInfo
 * @property {number} value
 * @property {Side | null} owner
 */

/**
 * @typedef {object} PositionInfo
 * @property {Side} side
 * @property {string} id
 * @property {string} other_side_id
 * @property {number[]} me  26 counts from this side: [0] borne off, [25] the bar
 * @property {number[]} them
 */

/**
 * @typedef {object} AbsenceInfo
 * @property {string | null} claimable_at
 * @property {boolean} can_claim
 * @property {boolean} kept_waiting
 * @property {boolean} show_deadline
 */

/**
 * @typedef {object} GameResultWords
 * @property {Side} winner
 * @property {number} points
 * @property {string | null} kind
 * @property {string} ending
 * @property {number[]} score
 * @property {string} text
 * @property {string} score_text
 */

/**
 * A resignation the table may offer or answer now, worth what it is at the cube.
 * @typedef {object} ResignOfferWords
 * @property {number} value  1 single, 2 gammon, 3 backgammon
 * @property {number} points
 * @property {number[] | null} score  the match's score if it is accepted (null outside a match)
 * @property {string} text
 */

/**
 * @typedef {object} GameInfo
 * @property {number} number
 * @property {string} status
 * @property {string} commitment
 * @property {string | null} seed
 * @property {number} rolls
 * @property {Side | null} winner
 * @property {number | null} points
 * @property {GameResultWords | null} result
 */

/** A single-die step [from, to] from the mover's side: 25 the bar, 0 off. @typedef {[number, number]} Step */

/**
 * @typedef {object} WrittenPlayView
 * @property {number[]} dice
 * @property {Step[]} play
 * @property {string} notation
 */

/**
 * @typedef {object} ConditionalView
 * @property {string | null} answer
 * @property {boolean} may_answer
 * @property {boolean} may_beaver
 * @property {WrittenPlayView[] | null} plays
 * @property {boolean} may_plays
 * @property {boolean} may_greedy
 */

/** @typedef {"pending" | "running" | "done" | "failed" | "deferred"} AnalysisStatus */

/**
 * @typedef {object} AnalysisLine
 * @property {number} game
 * @property {AnalysisStatus | null} status
 * @property {(number | null)[]} pr  by side
 * @property {boolean} quick  the PRs are the quick first pass's: the full analysis follows
 */

/**
 * @typedef {object} HistoryEntry
 * @property {number} game
 * @property {number} number
 * @property {Side} side
 * @property {TurnKind} kind
 * @property {boolean} automatic
 * @property {number[] | null} dice
 * @property {string} notation
 * @property {Step[] | null} steps
 * @property {boolean} blocked
 * @property {number | null} value
 * @property {string | null} reason
 * @property {number} cube_value
 * @property {string | null} at
 * @property {number | null} plays_written
 * @property {boolean} [opening]
 * @property {string | null} [text]
 */

/**
 * @typedef {object} MatchView
 * @property {number} number
 * @property {string} status
 * @property {Format} format
 * @property {number} length
 * @property {number[]} score  by side
 * @property {number[] | null} away
 * @property {EndReason | null} end_reason
 * @property {string | null} outcome  the finished match's end in words
 * @property {number} game_number
 * @property {boolean} crawford
 * @property {Phase} phase
 * @property {Side | null} turn
 * @property {number | null} turn_seat
 * @property {string | null} turn_started_at
 * @property {number[] | null} dice
 * @property {CubeInfo} cube
 * @property {number | null} resign_offered
 * @property {ResignOfferWords[]} resign_offers  each resignation's worth now
 * @property {boolean} resign_declined
 * @property {PositionInfo} position
 * @property {string} match_id
 * @property {string} gnubg_id
 * @property {number[]} pips
 * @property {Side | null} winner
 * @property {ActionName[]} allowed
 * @property {AbsenceInfo | null} absence
 * @property {number | null} rematch_offered_by
 * @property {GameInfo | null} game
 * @property {GameInfo[]} games
 * @property {AnalysisLine[]} analysis
 * @property {HistoryEntry[]} history
 * @property {number} side0_seat
 * @property {ConditionalView | null} conditional
 */

/**
 * @typedef {object} MessageLine
 * @property {number} seat
 * @property {string} nickname
 * @property {boolean} mine
 * @property {string} text
 * @property {boolean} with_turn
 * @property {number} version
 * @property {string} at
 */

/**
 * @typedef {object} TalkView
 * @property {boolean} muted
 * @property {number} max_length
 * @property {MessageLine[]} messages
 */

/**
 * @typedef {object} RoomState
 * @property {RoomInfo} room
 * @property {number} version
 * @property {ViewerInfo} viewer
 * @property {SeatInfo[]} seats
 * @property {MatchView | null} match  null while the room waits for its second player
 * @property {TalkView} [talk]  only for one of the two players
 */

/** A room state with a match on the table: what the board shows. @typedef {RoomState & {match: MatchView}} TableState */

// --- the steps: GET /api/rooms/<slug>/steps ------------------------------------

/**
 * One legal next step (games/selectors/records.py, step_options).
 * @typedef {object} StepOption
 * @property {number} from
 * @property {number} to
 * @property {number[]} dice
 * @property {string} label
 * @property {Step[]} path  the single-die steps it adds to the play
 * @property {boolean} hits
 * @property {string} position_id  once taken
 */

/**
 * @typedef {object} StepsAnswer
 * @property {number} version
 * @property {Step[]} [taken]
 * @property {StepOption[]} options
 */

/**
 * A state from the API with the ETag it came with.
 * @typedef {object} StateAnswer
 * @property {RoomState | null} state  null: not modified (304)
 * @property {string | null} etag
 */

// --- the board page --------------------------------------------------------------

/**
 * The URLs the page hands to the board (templates/games/_board_app.html).
 * `channelUrl`: the room's nchan channel (channel.js); without it the board long polls the state.
 * `channelSince`: the server's time (an HTTP date) a second before it drew the page's state.
 * @typedef {{stateUrl: string, stepsUrl: string, actionUrl: string, reviewUrl: string, channelUrl?: string | null, channelSince?: string | null}} BoardConfig
 */

/** The computer player's card beside its name. @typedef {{label: string, style: string}} BotCard */

/** `t(key, values)`: a translated string with its "{name}" placeholders filled in. @typedef {(key: string, values?: Record<string, string | number>) => string} Translate */

/**
 * The words of the board (texts.js, createTexts).
 * @typedef {object} Texts
 * @property {Translate} t
 * @property {(iso: string, now?: number) => string | null} since
 * @property {(iso: string) => string} moment
 * @property {(value: number, digits?: number) => string} number
 */

/** A spot the player can tap: "1".."24", "bar", "off", or the controls "dice" and "cube". @typedef {string} SpotKey */

/**
 * The controller's state (controller.js): the server's state and the play
 * being built on it.
 * @typedef {object} Model
 * @property {TableState} state
 * @property {string | null} etag
 * @property {boolean} flipped  a spectator turned the board round
 * @property {boolean} homeLeft
 * @property {StepOption[]} chosen  options taken this turn, in order
 * @property {StepOption[]} options  the server's next options after the chosen ones
 * @property {string | null} optionsFor  "version|taken" the options belong to
 * @property {SpotKey | null} selected
 * @property {boolean} busy  an action is on its way to the server
 * @property {boolean} loading  the next options are on their way
 * @property {{text: string, alert: boolean} | null} message
 */

// --- the board component (board.js, render.js) ------------------------------------

/**
 * Checkers by the viewer's point number (geometry.viewerBoard): [25] the bar, [0] off.
 * @typedef {object} ViewerBoard
 * @property {number[]} mine
 * @property {number[]} theirs
 */

/** @typedef {"cap" | "tyre"} PieceStyle */

/**
 * @typedef {object} DiceView
 * @property {number[]} values
 * @property {boolean[]} used
 * @property {boolean} mine  drawn on the viewer's half
 */

/**
 * @typedef {object} CubeView
 * @property {number} value
 * @property {"mine" | "theirs" | null} owner
 * @property {boolean} [offered]
 */

/**
 * What the board draws (view.js for the table, review/main.js for the review).
 * @typedef {object} BoardView
 * @property {ViewerBoard} board
 * @property {PieceStyle[]} styles  [the bottom side's, the top side's]
 * @property {boolean} homeLeft
 * @property {SpotKey | null} selected
 * @property {Set<SpotKey>} sources
 * @property {Map<SpotKey, string>} targets  destination -> its label
 * @property {Set<SpotKey>} lastFrom
 * @property {Set<SpotKey>} lastTo
 * @property {DiceView | null} dice
 * @property {boolean} canRoll
 * @property {CubeView | null} cube
 * @property {boolean} canDouble
 * @property {Map<SpotKey, string>} labels  each spot's spoken label
 * @property {boolean} [busy]
 * @property {boolean} [picture]  a position to look at (the review's boards): no controls
 */

/** What render.drawBoard draws: a view and the spot in the Tab order. @typedef {BoardView & {focusKey: SpotKey | null}} DrawnView */

// --- the review page (games/selectors/review.py, page_context and review_steps) ----------

/** Both sides' checkers seen from side 0. @typedef {{me: number[], them: number[]}} ReviewPosition */

/**
 * One of the best plays the evaluator found, best first.
 * @typedef {object} ReviewAlternative
 * @property {string} notation
 * @property {Step[]} steps
 * @property {number} equity
 */

/**
 * One rated decision of the game: a checker play or a cube action.
 * @typedef {object} ReviewStep
 * @property {number} turn
 * @property {Side} side
 * @property {string} kind  "play", "no_double", "double", "take", "drop" or "beaver"
 * @property {number[] | null} dice
 * @property {string | null} dice_text
 * @property {string} played
 * @property {string} best
 * @property {string} played_text
 * @property {string} best_text
 * @property {number} played_equity
 * @property {number} best_equity
 * @property {number} loss
 * @property {string} mark  "", "doubtful", "error" or "blunder"
 * @property {boolean} forced
 * @property {boolean} counted
 * @property {ReviewAlternative[]} alternatives
 * @property {{nd: number, dt: number, dp: number} | null} cube  the doubler's equities
 * @property {number} cube_value
 * @property {ReviewPosition} before
 * @property {Step[]} [played_steps]  a play's, from side 0
 * @property {ReviewPosition} [after_played]
 * @property {Step[]} [best_steps]
 * @property {ReviewPosition} [after_best]
 */

/**
 * What the review page hands over in #review-data.
 * @typedef {object} ReviewData
 * @property {ReviewStep[]} steps
 * @property {string[]} names  by side
 * @property {Record<string, number>} thresholds
 */

export {};
