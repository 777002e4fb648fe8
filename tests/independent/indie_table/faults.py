"""Firmware faults this device can be started with (`--fault NAME`); FAULTS.md says what each breaks."""

FAULTS = {
    "pending-forgotten-at-power-up": "a jackpot waiting for the reset key is lost at power-up",
    "round-counter-restarts": "the round number starts again from 1 after a power cycle",
    "lockout-late-first-round": "the lock-out is 5 ms late in the first round after power-up",
    "card-256-missed": "the 256th card out of a shoe is not seen by the lock-out",
    "replace-wager-settles-first": "a wager placed again is listed at the new amount, settled at the first",
    "config-partial-apply": "a refused configuration write keeps the fields applied before the refused one",
    "denomination-old-paytable": "after a denomination write the fixed lines pay the first denomination's paytable",
    "excess-dropped": "a contribution past the cap is dropped, not diverted",
    "wrong-game-type": "the controller's identity says game_type baccarat",
    "tie-pays-8-for-1": "a winning Tie returns 8 x stake (8 for 1) instead of 9 x (8 to 1)",
    "remove-after-close": "a wager can be taken off the layout after wagering closed",
    "event-seq-restarts-on-reconnect": "event SEQ restarts at 1 whenever the host reconnects",
    "cumulative-counts-fixed-lines": "the payout meters also count fixed Royal 9 lines",
    "reset-key-without-hit": "the reset key with nothing pending resets the meter (turns it back)",
    "payout-limit-unchecked": "a payout limit at or below the meter's current amount is accepted",
    "comm-loss-ignored": "losing the sensors link neither locks out nor refuses wagers",
    "no-base-wager-accepted": "a Royal 9 wager is accepted at a seat without a base wager",
    "button-no-event": "the lock-out button locks but sends no lockout event",
    "bad-seat-accepted": "a wager at a seat the table does not have (e.g. 8, 10) is accepted",
    "void-keeps-layout": "a voided round leaves the wagers on the layout",
    "residual-rounded-away": "contributions drop the fraction of a cent instead of carrying it",
}

# The second set (FAULTS2.md): written from docs/protocol.md and the regulation texts alone.
FAULTS_SET2 = {
    "card-n-not-reset-on-reload": "a shoe loaded again counts its cards on from the last shoe",
    "misread-card-not-out": "a misread card is not signalled as out to the controller: it neither locks nor counts",
    "last-seat-royal9-no-base": "a Royal 9 wager at the last seat (7) is refused no-base-wager beside a base wager",
    "wager-increase-after-no-more-bets": "after no more bets a wager on the layout can be placed again at a new amount",
    "no-more-bets-event-after-lockout": "round.no_more_bets sends its lockout event before the no_more_bets event",
    "old-denomination-accepted": "after a denomination write, Royal 9 wagers are checked against the power-up one",
    "base-removed-under-royal9": "the last base wager at a seat can be removed while its Royal 9 wager stays",
    "banker-commission-on-push": "a Banker wager that pushes (tie) is returned less the commission",
    "tableau-banker-3-draws-on-8": "the banker with 3 draws when the player's third card is an 8 (must stand)",
    "losing-royal9-payout-skipped": "a losing Royal 9 wager at a seat whose base wagers all lost gets no payout event",
    "major-hit-payout-twice": "a major jackpot hit sends its settlement payout twice",
    "suited-tie-paid-as-tie": "a suited Royal 9 tie hand is paid as a Royal 9 tie hand ($250, not $1,500)",
    "royal9-jack-not-face": "a jack and a nine are not recognised as a Royal 9",
    "mega-envy-one-dollar-amount": "on the $5 table mega envy pays the $1 paytable's $1,000, not $5,000",
    "minor-hit-shows-major-amount": "a minor jackpot hit reports and pays the major meter's amount",
    "minor-rate-from-major": "the minor meter grows at the major meter's rate of progression",
    "last-seat-contributes-twice": "a Royal 9 wager at the last seat (7) contributes twice to every meter",
    "major-payout-limit-ignored": "the major meter is capped at its display capacity only, not at its payout limit",
    "residual-lost-at-power-up": "the meters' residuals (fractions of a cent) are zero after a power cycle",
    "meters-saved-every-tenth-round": "meter amounts are written to non-volatile storage only in every tenth round",
    "reset-key-restores-initial": "the reset key puts a meter back to its initial amount, not its reset amount",
    "paid-by-attendant-not-booked": "the reset key books cumulative_paid but not paid_by_attendant",
    "second-meter-hit-not-pending": "when two meters are hit in one round only the first waits for the reset key",
    "reset-write-turns-meter-back": "a write of a meter's reset amount sets the meter to it (turns it back)",
    "commission-write-not-persisted": "a commission write is answered but not kept in non-volatile storage",
    "config-write-open-round-accepted": "a configuration write is taken in an open round with no wager on the layout",
    "identity-version-lost-after-power-up": "after a power cycle the controller's software_version is empty",
    "comm-lost-no-event-when-locked": "losing the sensors link while already locked sends no comm-lost lockout event",
    "link-restore-reopens-wagering": "the sensors link back mid-round reopens wagering; the wagers contribute again",
    "reboot-no-power-lockout": "after a controller reboot no lockout event (cause power) is sent",
    "event-seq-shared-across-lines": "one event counter is shared by the shoe, sensors and controller lines",
    "lockout-late-after-void": "in the round after a voided round the lock-out on the first card is 3 ms late",
    "meters-get-slow-with-pending": "meters.get answers after 150 ms while a payment waits for the reset key",
}

# The third set (FAULTS3.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET3 = {
    "empty-shoe-reports-ready": "a shoe dealt out answers shoe.status state ready (not empty) until it is loaded again",
    "misread-not-counted": "a misread card is not counted: the next card carries the misread's n",
    "player-natural-8-not-natural": "a player's two-card 8 is not a natural: a banker on 0-5 draws a third card",
    "royal9-multiple-accepted": "a Royal 9 wager of a multiple of the denomination is accepted and contributes in full",
    "one-base-wager-per-seat": "a second base wager at a seat (a Tie beside a Player) replaces the first",
    "removed-royal9-still-contributes": "a Royal 9 wager removed while wagering was open still contributes",
    "card-lock-disarmed-after-button": "after a round locked by the button, the next round's first card does not lock",
    "no-more-bets-after-settle-accepted": "round.no_more_bets after a settled round is answered and sends no_more_bets",
    "lockout-event-sent-late": "the lockout event of a card is sent 50 ms after wagering closed",
    "banker-commission-on-whole-return": "a winning Banker wager pays commission on stake and win, not on the win",
    "player-loses-beside-winning-tie": "on a tie, a Player or Banker wager at a seat with a Tie wager loses (no push)",
    "payouts-in-placement-order": "base-game payouts are sent in the order the wagers were placed, not seat order",
    "one-dollar-suited-royal9-pays-5": "on the $1 table a suited Royal 9 pays $5 (the Royal 9 line), not $10",
    "tie-with-one-suited-paid-suited-tie": "a Royal 9 tie hand with one suited Royal 9 is paid as a suited tie",
    "royal9-counts-third-card": "a face card and a nine counted as a Royal 9 with the third card of a hand",
    "mega-envy-needs-occupied-position": "mega envy is paid only when the position whose combination hit has a wager",
    "fixed-line-hit-amount-includes-stake": "a fixed line's hit event reports the award plus the stake",
    "jackpot-pays-round-start-amount": "a meter jackpot pays the round-start amount, not this round's contributions",
    "cap-one-cent-short": "a meter stops one cent below its cap; the cent is diverted",
    "rate-cached-at-power-up": "a rate write is shown but contributions keep the rate read at power-up",
    "residual-reported-in-dollars": "meters.get reports the residuals in dollars (a hundredth of the cent figure)",
    "capacity-under-limit-accepted": "a display capacity written alone below the payout limit is accepted",
    "reset-below-floor-accepted": "a reset amount below the Royal 9 floor is accepted (only initial is checked)",
    "config-set-answers-old-meters": "config.set writing meters answers the meters as they were before the write",
    "paid-meters-include-stake": "the reset key books the stake into cumulative_paid and paid_by_attendant",
    "reset-key-clears-every-pending": "the reset key of one meter clears every pending payment",
    "pending-does-not-block-after-power-up": "after a power cycle round.open is taken while a payment is pending",
    "sensors-report-shoe-serial": "the bet sensors' identity reports the shoe's serial number",
    "link-loss-clears-layout": "losing the sensors link takes every wager off the layout",
    "lock-state-restored-at-power-up": "after power is lost in an open round, lockout.get says unlocked after power-up",
    "void-round-number-reused": "the round after a voided round gets the voided round's number again",
    "attendant-payout-after-round-end": "the payout of an attendant-paid jackpot is sent after round_end",
    "reset-event-reuses-seq": "the reset event carries the SEQ of the event before it",
    "meter-write-answers-slowly": "config.set writing meters answers after 250 ms",
}

# The fourth set (FAULTS4.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET4 = {
    "reload-appends-to-shoe": "a shoe loaded again keeps the cards left in it and puts the new ones behind them",
    "shoe-status-ready-while-dealing": "shoe.status answers state ready (not dealing) while a deal is in progress",
    "remove-takes-whole-seat": "removing one wager at a seat with two base wagers takes every wager at the seat",
    "zero-amount-removes-wager": "placing again at amount 0 is accepted and takes the wager off the layout",
    "streak3-accepted-as-base": "the Mini-Baccarat three-games wagers are accepted on the Midibaccarat layout",
    "refused-royal9-contributes": "a Royal 9 wager refused no-base-wager still contributes when wagering closes",
    "nmb-event-previous-round": "the no_more_bets event carries the previous round's number",
    "lockout-get-unlocked-after-nmb": "after no more bets, lockout.get answers unlocked while wagers are refused",
    "lockout-slow-with-many-wagers": "the lock-out on the first card is 0.6 ms later for every wager past the fourth",
    "banker-6-draws-player-stood": "when the player stands on 6 or 7 a banker's 6 draws a third card",
    "commission-write-ignored-in-settlement": "a commission write is shown; Banker wins keep the power-up commission",
    "commission-on-whole-dollars": "the Banker commission is taken on the whole dollars of the stake only",
    "one-dollar-tie-line-from-five-table": "on the $1 table a Royal 9 tie hand pays the $5 table's $250, not $50",
    "banker-suited-royal9-paid-unsuited": "a suited Royal 9 on the banker hand is paid as a Royal 9 ($25, not $50)",
    "suited-tie-requires-same-suit": "a suited Royal 9 tie hand of two different suits is paid as a Royal 9 tie",
    "suited-minor-paid-as-suited-royal9": "a suited personal king 9 on the player hand pays suited Royal 9, not minor",
    "royal9-settled-before-base": "at settlement the Royal 9 hits and payouts are sent before the base-game payouts",
    "residual-from-first-wager-only": "with two Royal 9 wagers only the first one's fraction of a cent is carried",
    "diverted-rounds-up": "an excess past the cap is diverted rounded up to the cent; the residual is lost",
    "rate-write-drops-residual": "writing a meter's rate sets its residual to zero",
    "initial-write-sets-meter": "writing a meter's initial amount above the meter moves the meter up to it",
    "reset-key-answers-paid-amount": "the reset key answers the amount paid, not the meter's amount after the reset",
    "pending-seat-is-first-seat": "a pending payment names the table's first seat, not the winner's",
    "reset-key-second-turn-books-again": "the reset key turned again with nothing pending books the last payment again",
    "paid-by-attendant-not-saved": "paid_by_attendant is not kept in non-volatile storage: a power cycle undoes it",
    "refused-write-reaches-storage": "a configuration write refused while live is written to non-volatile storage",
    "denomination-write-skips-floors": "a denomination write is not checked against that denomination's floors",
    "controller-type-lost-after-config-write": "after a configuration write the identity's controller_type is empty",
    "link-loss-forgotten-at-reboot": "a controller reboot forgets that the sensors link is down",
    "layout-survives-power-loss": "the wagers on the layout are still listed after a power cycle",
    "minor-hit-meter-field-null": "the hit event of a minor jackpot says meter null",
    "unlock-event-cause-after-void": "the round opened after a voided round sends its unlock with cause no-more-bets",
    "event-seq-steps-on-refusal": "a command REFUSED steps the controller's event SEQ: the next event skips a number",
    "wager-list-slow-when-full": "wager.list answers after 120 ms with eight or more wagers on the layout",
}

# The fifth set (FAULTS5.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET5 = {
    "card-event-hearts-as-diamonds": "the shoe's card events report every heart as a diamond (KH is sent as KD)",
    "card-events-sent-in-pairs": "the shoe sends an odd-numbered card's event with the next card (or 400 ms late)",
    "misread-first-card-locks-late": "when the round's first card is misread the lock-out comes 4 ms late",
    "wager-list-grouped-by-type": "wager.list lists the wagers grouped by wager type, not in seat order",
    "royal9-remove-refused-while-open": "a Royal 9 wager cannot be taken off while wagering is open (REFUSED)",
    "link-down-refused-locked-out": "with the sensors link down in an open round wagers are refused locked-out",
    "lockout-get-open-cause-round-open": "lockout.get answers cause round-open (not null) while wagering is open",
    "button-event-when-locked": "the lock-out button pressed while wagering is closed sends a lockout event",
    "nmb-after-button-no-event": "round.no_more_bets after the lock-out button is answered but sends no event",
    "void-round-end-without-void-flag": "a voided round's round_end event does not say void",
    "round-number-not-saved-in-open-round": "a power cycle in an open round gives the next round that round's number",
    "refused-open-counts-round": "a round.open REFUSED (link down, payment pending) still steps the round number",
    "round-number-one-byte": "the round number is kept in one byte: the round after 255 is round 0",
    "event-seq-survives-power-cycle": "after a power cycle the event SEQ runs on instead of starting at 1",
    "banker-5-stands-on-4": "a banker's 5 stands when the player's third card is a 4 (must draw)",
    "commission-rounded-up": "the Banker commission's fraction of a cent is rounded up, not down",
    "losing-royal9-category-lose": "a losing Royal 9 wager's payout says category lose instead of null",
    "nine-first-not-royal9-on-banker": "a banker hand of a nine then a face card is not a Royal 9",
    "combination-matched-on-king-suit": "a personal combination matches its king with a nine of any suit",
    "envy-hit-names-combination-seat": "a mega envy hit event names the seat whose combination hit, not the winner",
    "contribution-uses-five-dollar-stake": "each Royal 9 wager contributes as a $5 wager on the $1 table",
    "one-dollar-suited-tie-typo": "on the $1 table a suited Royal 9 tie hand pays $30, not $300",
    "one-dollar-writes-held-to-five-floors": "on the $1 table meter writes are held to the $5 floors",
    "reset-key-zeroes-residual": "the reset key sets the meter's residual (fraction of a cent) to zero",
    "card-after-nmb-contributes-again": "after no more bets the first card makes the Royal 9 wagers contribute again",
    "residual-major-minor-swapped": "meters.get reports the major's residual under minor and the minor's under major",
    "diverted-listed-only-when-nonzero": "meters.get leaves out diverted for a meter at its cap with nothing diverted",
    "cumulative-booked-at-hit": "an attendant-paid jackpot is booked into cumulative_paid at the hit, not at the key",
    "pending-doubled-after-reboot": "after a controller reboot every pending payment is listed twice",
    "reset-key-only-oldest-pending": "with two payments pending the reset key of the later one is REFUSED",
    "meter-write-drops-pending": "a configuration write of a meter drops that meter's pending payment",
    "null-payout-limit-bad-args": "a payout limit written as null (no limit) is answered BAD_ARGS",
    "shoe-identity-without-asset-or-game": "the shoe's identity has neither asset_number nor game_type",
    "comm-lost-latched-after-restore": "after the sensors link is back round.open is REFUSED until the lock-out button",
    "reset-key-answers-slowly": "the reset key is answered after 180 ms",
}

# The sixth set (FAULTS6.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET6 = {
    "shoe-status-dealt-excludes-misread": "shoe.status cards_dealt leaves out misread cards (card events count them)",
    "shoe-empty-with-one-card-left": "shoe.status answers state empty while one card is still in the shoe",
    "wager-decrease-refused-bad-amount": "a base wager placed again at a smaller amount is refused bad-amount",
    "bad-seat-checked-after-lockout": "with wagering closed a wager at a seat the table lacks is refused locked-out",
    "wager-list-stale-after-remove": "wager.list still lists a removed wager until the next wager is placed",
    "unoffered-type-refused-bad-amount": "a wager type the table does not offer is refused bad-amount, not disabled",
    "tie-not-a-base-wager-for-royal9": "a Royal 9 wager beside a Tie wager alone is refused no-base-wager",
    "refused-place-sends-wager-event": "a wager.place the table refuses also sends a sensors wager event",
    "nmb-lockout-cause-button": "round.no_more_bets closes wagering with lock-out cause button, not no-more-bets",
    "lock-line-stuck-after-reboot": "after a controller reboot the first round.open does not lower the lock-out line",
    "lockout-late-after-reset-key": "in the round after a reset key the lock-out on the first card is 2.5 ms late",
    "first-unlock-after-power-not-sent": "the first round.open after a power cycle sends no lockout (round-open) event",
    "void-flag-carried-to-next-round": "the round settled after a voided round says void true in its round_end",
    "round-open-accepted-mid-deal": "round.open is taken while the last round is still being dealt",
    "second-round-open-taken-with-pending": "with a payment pending the first round.open is REFUSED, the second taken",
    "banker-4-draws-on-ace": "a banker's 4 draws when the player's third card is an ace (must stand)",
    "commission-decimal-truncated": "a commission of 4.5 % is charged as 4 % (the decimal part is dropped)",
    "push-category-win": "a Player or Banker wager pushed by a tie is paid with category win (stake returned)",
    "ten-nine-counted-royal9": "a ten and a nine are taken for a Royal 9 (the check looks for a value-0 card)",
    "last-seat-combination-off-by-one": "the last seat's personal combination is read from the seat before it",
    "envy-payout-stake-zero": "a mega envy payout to a seat with a Royal 9 wager says stake 0",
    "meter-payout-before-hit": "a meter jackpot's payout event is sent before its hit event",
    "one-dollar-hit-amount-in-dollars": "on the $1 table a fixed line's hit event gives the award in dollars",
    "residual-never-carried-into-meter": "the residual grows past a cent: its whole cents never reach the meter",
    "contribution-booked-at-settlement": "Royal 9 wagers contribute at settlement instead of when wagering closes",
    "diverted-cleared-by-reset-key": "the reset key sets the meter's diverted count back to zero",
    "contribution-not-saved-until-settlement": "contributions reach non-volatile storage only at settlement",
    "attendant-payment-booked-as-table": "the reset key books the attendant's payment into paid_by_table",
    "reset-key-nothing-pending-bad-args": "the reset key with nothing pending is NAK BAD_ARGS, not REFUSED",
    "reset-event-missing-after-reboot": "after a controller reboot the reset key sends no reset event",
    "config-get-stale-after-write": "config.get answers the configuration read at power-up until the next power cycle",
    "reset-equal-current-refused": "a reset amount written equal to the meter's current amount is REFUSED",
    "limit-write-clears-capacity": "a payout limit written alone sets the meter's display capacity to null",
    "identity-slow-after-power-up": "each device's first identity after a power cycle answers after 250 ms",
    "royal9-remove-answers-slowly": "wager.remove of a Royal 9 wager answers after 150 ms",
}

# The seventh set (FAULTS7.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET7 = {
    "card-event-ten-as-10": "the shoe's card events report a ten with rank 10 (10S), not T",
    "cards-remaining-keeps-misread": "shoe.status cards_remaining still counts a misread card as in the shoe",
    "shoe-dealing-after-shoe-dealt-out": "a paced deal that empties the shoe leaves shoe.status at state dealing",
    "wager-list-first-amount": "wager.list shows a wager placed again at the amount first placed",
    "remove-missing-wager-answered-removed": "wager.remove of a wager not on the layout answers removed true",
    "remove-after-close-bad-args": "wager.remove after wagering closed is NAK BAD_ARGS, not REFUSED",
    "wager-list-omits-last-seat": "wager.list leaves out the wagers at the table's last seat (7)",
    "one-dollar-five-dollar-royal9-accepted": "on the $1 table a $5 Royal 9 wager is accepted (and contributes)",
    "lockout-get-button-cause-card": "after the lock-out button in an open round lockout.get answers cause card",
    "lockout-late-after-config-write": "after a configuration write the lock-out on the first card is 3 ms late",
    "round-open-answers-previous-number": "round.open answers the last round's number; the events carry the new one",
    "void-taken-after-misread-card": "round.settle voids a round whose only card out was misread",
    "round-end-twice-on-natural": "a round ended by a natural sends its round_end event twice",
    "void-round-end-late": "a voided round's round_end event is sent 300 ms after the answer",
    "player-draws-on-6": "the player's two-card 6 draws a third card (must stand)",
    "tie-win-category-push": "a winning Tie wager's payout says category push (returned 9 x stake)",
    "royal9-tie-paid-as-royal9": "a Royal 9 tie hand (not suited) is paid as a Royal 9 ($25, not $250)",
    "personal-hands-swapped": "a seat's combination on the player hand pays the major, on the banker hand the minor",
    "royal9-read-from-first-two-cards": "the player's Royal 9 is read from the first two cards out (player and banker)",
    "losing-royal9-stake-from-base": "a losing Royal 9 wager's payout gives the seat's base wager as its stake",
    "cap-stops-later-meters": "a contribution that meets one meter's cap adds nothing to the meters after it",
    "residual-whole-cent-kept": "a residual reaching exactly one cent is not carried into the meter",
    "diverted-booked-to-mega": "the excess past any meter's cap is counted under diverted.mega",
    "tie-wager-contributes": "a Tie wager feeds the progressive meters like a Royal 9 wager",
    "comm-lost-after-close-contributes-again": "the sensors link lost after wagering closed books contributions again",
    "pending-amount-includes-stake": "a pending payment's amount includes the Royal 9 stake",
    "reset-key-books-after-reset": "the reset key books the meter's reset amount, not the amount paid",
    "key-clear-not-saved": "the reset key's clearing of a pending payment is not kept: a power cycle brings it back",
    "commission-answered-as-number": "config.set answers a whole commission as a JSON number, not a decimal string",
    "decks-write-bad-args": "a decks write of another count (inside 1..16) is NAK BAD_ARGS, not REFUSED",
    "minor-reset-above-current-accepted": "a reset amount above the minor meter's current amount is accepted",
    "serial-counts-power-ups": "the controller's identity serial changes with every power cycle",
    "controller-reboot-restarts-shoe-seq": "a controller reboot restarts the shoe's and sensors' event SEQ too",
    "misread-steps-seq-twice": "a misread event steps the shoe's event SEQ twice: the next event skips a number",
    "shoe-status-slow-while-dealing": "shoe.status answers after 150 ms while a deal is in progress",
}

# The eighth set (FAULTS8.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET8 = {
    "card-n-one-byte": "the shoe's card (and misread) events carry n in one byte: the 256th card says n 0",
    "shoe-status-counts-ahead-in-paced-deal": "during a paced deal shoe.status answers the counts the deal will end at",
    "empty-flag-kept-after-reload": "a shoe dealt out and loaded again answers state empty until its next card",
    "last-card-event-repeated": "a paced deal sends its last card's card event a second time when the deal ends",
    "negative-amount-accepted": "a negative wager amount is taken as an unsigned count and accepted",
    "replace-after-remove-refused": "a wager removed while wagering is open cannot be placed again: refused locked-out",
    "wager-list-empty-after-lockout": "once wagering closes wager.list answers no wager until the round ends",
    "layout-full-at-sixteen": "the 17th wager of a round is answered accepted but never reaches the layout",
    "removed-wager-settled": "a wager removed while wagering was open is still settled (and paid) with the round",
    "one-dollar-wager-list-royal9-500": "wager.list gives every Royal 9 wager as 500 cents ($1 table: not 100)",
    "one-dollar-small-base-not-counted": "a base wager under $5 does not count for the Royal 9 wager: no-base-wager",
    "comm-lost-refusal-waits-link-timeout": "with the sensors link down wager.place answers after 300 ms",
    "card-out-masked-after-open": "a first card within 300 ms of round.open locks wagering only when the 300 ms end",
    "lockout-get-open-after-settlement": "after a settled round lockout.get answers unlocked while wagers are refused",
    "void-closes-without-lockout-event": "round.settle voiding a round closes wagering without a lockout event",
    "link-restore-sends-stale-unlock": "the sensors link back mid-round sends an unlock event; wagering stays closed",
    "void-refused-after-button": "round.settle with no card out is REFUSED after the lock-out button (no void)",
    "banker-6-stands-on-third-6": "a banker's 6 stands when the player's third card is a 6 (must draw)",
    "banker-natural-checked-after-player-draw": "the player draws a third card against a banker natural",
    "tie-win-charged-commission": "a winning Tie wager is charged the Banker commission on its win",
    "mega-checked-after-major": "a seat's combination on both hands is paid the major, not the mega jackpot",
    "jackpot-rounds-residual-up": "a meter jackpot pays the meter plus one cent when the meter carries a residual",
    "one-dollar-mega-envy-pays-five-dollar-line": "on the $1 table mega envy pays the $5 table's $5,000, not $1,000",
    "royal9-contributes-per-base-wager": "a Royal 9 wager contributes once per base wager at its seat",
    "meter-rounds-half-up": "a contribution rounds the meter half up; the residual goes negative",
    "denomination-write-loads-floors": "a denomination write puts every meter at that denomination's floor amount",
    "pending-meter-turned-back-at-power-up": "after a power-up a meter whose payment is pending shows its reset amount",
    "key-after-power-books-nothing": "the reset key after a power cycle books 0 for the payment it clears",
    "reset-key-refused-after-reboot": "after a controller reboot the reset key of a pending payment is REFUSED",
    "payout-limit-equal-current-accepted": "a payout limit equal to the meter's current amount is accepted",
    "initial-above-limit-accepted": "an initial amount above the meter's payout limit is accepted",
    "config-live-after-void": "after a voided round configuration writes are REFUSED live until a round is settled",
    "major-limit-write-sets-minor-limit": "a payout limit written for the major is also written to the minor",
    "software-id-empty-after-reboot": "after a controller reboot the controller's identity has software_id empty",
    "power-up-event-seq-from-zero": "after a power cycle each device's first event has SEQ 0",
}

# The ninth set (FAULTS9.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET9 = {
    "card-n-restarts-each-round": "the shoe's card events number the cards from 1 again at every round.open",
    "shoe-seq-restarts-on-reload": "the shoe's event SEQ starts again at 1 whenever the shoe is loaded",
    "shoe-dealing-after-power-cut-mid-deal": "a power cut during a paced deal leaves shoe.status at state dealing",
    "royal9-placed-again-contributes-twice": "a Royal 9 wager placed again contributes once per placement",
    "wager-list-kept-after-settlement": "after a settled round wager.list still lists its wagers until round.open",
    "tie-placed-again-adds": "a Tie wager placed again is added to the amount on the layout, not replaced",
    "button-refusal-reason-no-more-bets": "after the lock-out button in an open round wagers are refused no-more-bets",
    "wager-accepted-after-void": "after a voided round wager.place is accepted (and listed) until the next round",
    "amount-over-65535-truncated": "a wager amount above 65535 cents is kept in 16 bits (100000 becomes 34464)",
    "lockout-late-when-meter-at-cap": "while a meter stands at its cap the lock-out on the first card is 4 ms late",
    "card-lockout-event-skipped-with-empty-layout": "a first card with no wager on the layout locks without an event",
    "banker-2-stands-on-third-8": "a banker's 2 stands when the player's third card is an 8 (must draw)",
    "banker-commission-on-seat-first-stake": "a Banker win beside a Player wager is charged commission on the Player's",
    "banker-three-card-win-no-commission": "a Banker wager won with a three-card banker hand is paid no commission",
    "tie-rows-checked-before-personal": "a personal king 9 on one hand and a Royal 9 on the other pays a Royal 9 tie",
    "envy-paid-to-first-seat-only": "mega envy is paid to the first seat with a Royal 9 wager only; the others lose",
    "jackpot-returned-without-stake": "a meter jackpot's payout returns the award without the stake",
    "royal9-payouts-last-seat-first": "at settlement the Royal 9 hits and payouts go from the last seat to the first",
    "one-dollar-paytable-lost-at-power-up": "after a power cycle the $1 table pays the fixed lines of the $5 paytable",
    "sub-cent-contribution-skipped": "a contribution under one cent to a meter is dropped ($1 table: major, minor)",
    "capacity-ignored-without-limit": "a meter without a payout limit is not held at its display capacity",
    "void-takes-back-contributions": "voiding a round after the button takes the round's contributions off the meters",
    "comm-lost-close-skips-contribution": "wagering closed by a sensors link loss books no contribution",
    "pending-stale-after-key": "the first meters.get after the reset key lists the payment it cleared",
    "payout-meters-zeroed-by-reboot": "a controller reboot sets the payout meters to 0",
    "pending-amount-truncated-to-dollar": "meters.get gives each pending payment's amount in whole dollars",
    "one-dollar-reset-key-clamps-to-five-dollar-floor": "the reset key puts a meter no lower than the $5 floor",
    "floor-itself-refused": "an amount equal to its Royal 9 floor fails the floor check (meter writes refused)",
    "config-set-answers-written-fields-only": "config.set answers game and the fields written, not the whole set",
    "config-write-saved-at-next-round": "a configuration write reaches non-volatile storage with the next round.open",
    "meter-write-bad-args-keeps-earlier-keys": "a meter write answered BAD_ARGS keeps the keys before the bad one",
    "sensors-software-id-empty-after-link-restore": "after the sensors link is back the sensors' software_id is empty",
    "power-lockout-held-until-first-request": "after power-up the power lockout event waits for the first request",
    "reconnect-resends-last-event": "a host reconnecting to the controller is sent its last event again (a new SEQ)",
    "void-answers-slowly": "round.settle voiding a round answers after 200 ms",
}

# The tenth set (FAULTS10.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET10 = {
    "card-event-lost-in-burst": "of cards dealt at once, the sixth card's event is dropped (five-frame transmit ring)",
    "misread-n-one-behind": "a misread event carries the n of the card before it (the counter is stepped after)",
    "royal9-refused-replace-drops-wager": "a Royal 9 wager placed again at a refused amount is taken off the layout",
    "base-remove-refused-beside-royal9": "a base wager at a seat with a Royal 9 wager cannot be removed even where "
                                         "another base wager stays",
    "no-base-refusal-latched": "a seat refused no-base-wager keeps refusing Royal 9 wagers until the next round",
    "lockout-late-after-link-restore": "in the first round after the sensors link is back the lock-out is 3.5 ms late",
    "lockout-late-every-tenth-round": "in every tenth round (10, 20, ...) the lock-out on the first card is 3 ms late",
    "settle-taken-before-third-card": "round.settle settles on four cards while the tableau still needs a card",
    "banker-5-stands-when-player-stood": "when the player stands on 6 or 7 a banker's 5 stands (must draw)",
    "losing-tie-payout-skipped": "a losing Tie wager gets no settlement payout event",
    "envy-paid-to-base-only-seats": "mega envy is also paid to seats with a base wager and no Royal 9 wager",
    "mega-winner-also-paid-envy": "the seat that wins the mega is also paid mega envy (a second payout)",
    "paid-by-attendant-carried-to-next-seat": "after a meter jackpot the later Royal 9 payouts say paid_by attendant",
    "hits-sent-before-payouts": "the Royal 9 settlement sends every seat's hit before the first Royal 9 payout",
    "first-seat-royal9-not-contributing": "the Royal 9 wager at seat 1 does not contribute to the meters",
    "carry-passed-between-meters": "a contribution carries one meter's fraction of a cent into the next meter",
    "cap-cached-at-power-up": "a payout limit written is shown but the meter is capped at the power-up limit",
    "pending-category-wager-type": "meters.get gives each pending payment's category as royal9 (the wager type)",
    "open-block-cleared-by-first-key": "with two payments pending the first reset key lets round.open through",
    "round-end-held-until-key": "a round with an attendant-paid jackpot sends its round_end at the reset key",
    "cumulative-booked-after-save": "the reset key writes the payout record before adding to cumulative_paid",
    "paid-by-attendant-wraps-at-24-bits": "paid_by_attendant is kept in 24 bits: it wraps past 16777215 cents",
    "residual-saved-to-one-decimal": "the residuals are written to non-volatile storage to one decimal of a cent",
    "config-refused-while-payment-pending": "a configuration write is REFUSED while a payment waits for the reset key",
    "initial-write-copies-to-reset": "a meter's initial amount written alone is also written as its reset amount",
    "null-limit-dropped-from-config": "a payout limit or display capacity of null is left out of the configuration",
    "controller-serial-from-asset-number": "the controller's identity gives the asset number as its serial",
    "power-lockout-event-old-cause": "the lockout event after power-up carries the cause held before the power loss",
    "reboot-keeps-round-phase": "a controller reboot in an open round keeps the round: round.open REFUSED after it",
    "comm-lost-event-once-per-power-up": "only the first sensors link loss after power-up sends its lockout event",
    "settlement-events-own-seq": "the settlement's hit, payout and round_end events are numbered on their own counter",
    "round-open-slow-after-key": "the first round.open after a reset key answers after 150 ms",
    "one-dollar-tie-and-suited-swapped": "on the $1 table a Royal 9 tie hand pays $10 and a suited Royal 9 $50",
    "one-dollar-lockout-late-on-fractional-contribution": "a Royal 9 wager feeding a meter under a cent ($1 table) "
                                                          "makes the lock-out 3 ms late",
    "one-dollar-royal9-payout-stake-500": "on the $1 table a Royal 9 payout gives its stake as 500 cents",
}

# The eleventh set (FAULTS11.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET11 = {
    "card-n-counts-error-event": "a shoe error event steps the card count: the next card's n and cards_dealt skip one",
    "misread-followed-by-card-event": "a misread card is also reported as a card event (same n) by the reader's retry",
    "card-n-restarts-after-power-cycle": "after a power cycle the card events number from 1; shoe.status counts on",
    "base-remove-refused-after-royal9-removed": "after a seat's Royal 9 wager is removed its base wager cannot be "
                                                "removed (REFUSED) until the next round",
    "royal9-amount-5-taken-as-dollars": "a Royal 9 wager of amount 5 (cents) is taken as $5: accepted and listed 500",
    "refused-royal9-listed": "a Royal 9 wager refused bad-amount is still listed by wager.list until the round ends",
    "open-refused-after-nmb-void": "after a round voided following no more bets, round.open is REFUSED as unsettled",
    "button-toggles-lockout": "the lock-out button pressed again in an open round opens wagering again",
    "link-loss-announces-no-more-bets": "a sensors link loss in an open round also sends a no_more_bets event",
    "royal9-on-tie-base-not-contributing": "a Royal 9 wager whose seat has a Tie wager only does not contribute",
    "jackpot-pays-diverted-too": "a meter jackpot at its cap pays the meter plus the cents diverted past the cap",
    "reset-key-resets-later-meters": "the reset key of a meter also puts the meters after it back to their reset "
                                     "amounts (silently)",
    "cumulative-paid-overwritten": "the reset key writes the payment into cumulative_paid instead of adding it",
    "reset-event-amount-from-initial": "the reset event carries the meter's initial amount, not its amount after "
                                       "the reset",
    "limit-equal-to-capacity-refused": "a payout limit equal to the display capacity is REFUSED",
    "meter-write-reverts-other-meters": "a meter write puts the other meters' settings back to those read at power-up",
    "mystery-field-lost-at-power-up": "after a power cycle the configuration has no mystery field (null is dropped)",
    "power-up-reads-older-record": "at power-up the controller reads the older of its two storage records",
    "lockout-get-cause-null-after-power": "after a power cycle lockout.get answers locked with cause null",
    "round-end-number-read-at-power-up": "the first round after a power cycle ends with the round number read at "
                                         "power-up",
    "comm-lost-refusal-kept-after-restore": "the first wager after the sensors link is back is refused comm-lost",
    "pending-cleared-by-link-loss": "a sensors link loss clears the payments waiting for the reset key",
    "config-refused-while-link-down": "a configuration write is REFUSED while the sensors link is down",
    "bad-crc-resets-event-seq": "a frame received with a bad CRC restarts the line's event SEQ at 1",
    "shoe-manufacturer-truncated-16": "the shoe's identity gives its manufacturer cut to 16 characters",
    "sensors-location-lost-at-power-up": "after a power cycle the bet sensors' identity has location empty",
    "third-card-total-not-mod-10": "a hand's total with a third card is not taken modulo 10",
    "banker-3-stands-on-third-9": "a banker's 3 stands when the player's third card is a 9 (must draw)",
    "losing-royal9-returned-on-push": "a losing Royal 9 wager at a seat whose base wager pushed returns its stake",
    "royal9-tie-hit-sent-per-hand": "a Royal 9 tie hand (suited or not) sends its hit event once per hand (twice)",
    "unsuited-combination-paid-as-royal9": "a personal combination of two suits (seats 5 to 7) is paid as a Royal 9",
    "envy-needs-same-card-order": "mega envy is paid only when both hands show the combination in the same order",
    "lockout-late-on-face-first-card": "a face card as the round's first card makes the lock-out 3 ms late",
    "lockout-press-slow-when-locked": "lockout.press with wagering already closed answers after 150 ms",
    "reset-event-sent-after-key-answer": "the reset event of the reset key is sent 50 ms after the key's answer",
}

# The twelfth set (FAULTS12.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET12 = {
    "shoe-error-reports-empty": "after a shoe error event shoe.status answers state empty until the shoe is loaded "
                                "again",
    "card-n-reset-only-by-empty-shoe": "a shoe loaded again while cards are left in it counts its cards on from "
                                       "the last load",
    "cards-remaining-one-byte": "shoe.status gives cards_remaining in one byte: a shoe of 300 cards says 44",
    "remove-tie-clears-banker": "wager.remove of a Tie wager at a seat with a Banker wager takes off the Banker "
                                "wager instead",
    "royal9-base-checked-at-any-seat": "a Royal 9 wager is accepted at a seat without a base wager when another "
                                       "seat has one",
    "wager-list-empty-while-link-down": "wager.list answers no wager while the sensors link is down",
    "sensors-gate-open-after-reboot": "after a controller reboot in an open round the sensors accept wagers until "
                                      "the next round.open",
    "sensors-answer-controller-reads": "the bet sensors answer config.get, meters.get and lockout.get (forwarded) "
                                       "instead of UNKNOWN_CMD",
    "nmb-events-after-answer": "round.no_more_bets answers before its no_more_bets and lockout events (40 ms later)",
    "nmb-void-answer-without-void-flag": "round.settle voiding a round after no more bets answers without void true",
    "settle-voids-round-lost-to-power": "after a power cycle in an open round, round.settle voids that lost round "
                                        "instead of REFUSED",
    "round-number-skips-after-power-cycle": "every power-up steps the round number: the next round.open skips one",
    "open-taken-when-link-lost-between-rounds": "round.open is taken while the sensors link is down if it went down "
                                                "with no round open",
    "settlement-held-while-link-down": "a round whose last card comes while the sensors link is down is settled "
                                       "only when the link is back",
    "misread-first-card-lockout-cause-misread": "a misread first card closes wagering with lock-out cause misread",
    "lockout-late-after-removal": "in a round where a wager was removed the lock-out on the first card is 3 ms late",
    "lockout-get-slow-while-link-down": "lockout.get answers after 150 ms while the sensors link is down",
    "contribution-counts-last-royal9-only": "with several Royal 9 wagers only the last seat's wager contributes",
    "cap-crossing-contribution-diverted-whole": "the contribution that crosses a meter's cap is diverted whole; the "
                                                "meter stays below its cap",
    "void-after-close-contributes-again": "voiding a round whose wagering was already closed books its contributions "
                                          "again",
    "diverted-lost-at-power-up": "the meters' diverted counts are zero after a power cycle",
    "pending-amount-from-round-start": "a pending payment's amount is the meter's round-start amount, not the amount "
                                       "won",
    "reset-amount-cached-at-power-up": "the reset key puts a meter back to the reset amount read at power-up, not "
                                       "the one written since",
    "base-payouts-grouped-by-type": "at settlement the base-game payouts are sent grouped by wager type, not in "
                                    "seat order",
    "banker-4-draws-on-third-8": "a banker's 4 draws when the player's third card is an 8 (must stand)",
    "player-stands-on-5": "the player's two-card 5 stands (must draw)",
    "envy-paid-for-unassigned-combination": "the same king 9 on both hands is paid mega envy though no position has "
                                            "that combination",
    "commission-decimal-bad-args": "a commission write with a decimal part (\"4.5\") is answered BAD_ARGS",
    "limit-checked-against-mega-amount": "a payout limit written for the major or minor is held to the mega's "
                                         "current amount",
    "reset-checked-against-initial": "a reset amount written is held to the meter's initial amount, not its "
                                     "current one",
    "rate-written-to-two-decimals": "a rate written is kept to two decimals (\"0.375\" becomes \"0.38\")",
    "denomination-write-lost-at-power-up": "after a power cycle the denomination is the one of the Rules Submission "
                                           "preset again",
    "sensors-serial-empty-after-reboot": "after a bet sensors reboot their identity has serial empty",
    "bad-frame-nak-seq-zero": "a BAD_FRAME NAK for a frame with a good CRC carries SEQ 0, not the frame's SEQ",
    "power-lockout-sent-on-every-line": "after power-up the shoe and the sensors also send the lockout event (cause "
                                        "power)",
}

# The thirteenth set (FAULTS13.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET13 = {
    "shoe-status-empty-omits-remaining": "shoe.status of an empty shoe answers without cards_remaining",
    "same-rank-card-reported-with-last-suit": "a card of the same rank as the card before it is reported with that "
                                              "card's suit",
    "event-seq-wraps-through-zero": "the event SEQ after 65535 is 0 (then 1), not 1",
    "replace-answer-without-reason": "a wager placed again (replacing the amount) is answered accepted without "
                                     "reason null",
    "refused-replace-still-written": "a wager placed again after wagering closed is refused but its new amount is "
                                     "kept",
    "zero-amount-accepted": "a new wager of amount 0 is accepted and listed (the check is amount < 0)",
    "royal9-placed-again-refused-bad-amount": "a Royal 9 wager placed again at the denomination is refused "
                                              "bad-amount (old and new amounts added before the check)",
    "lockout-press-answers-before-lock": "lockout.press answers locked false when it is the press that closed "
                                         "wagering",
    "refused-open-clears-layout": "round.open REFUSED while a round is dealt takes that round's wagers off the "
                                  "layout",
    "settle-after-void-voids-again": "round.settle after a voided round voids it again (a second round_end)",
    "void-answer-without-round": "round.settle voiding a round answers void true without the round number",
    "nmb-answer-waits-for-contribution-write": "round.no_more_bets with a Royal 9 wager on the layout answers "
                                               "after 150 ms",
    "lock-line-released-late": "the lock-out line falls 120 ms after round.open, even when a card closed wagering "
                               "meanwhile",
    "lockout-get-cause-cleared-by-link-restore": "after the sensors link is back in a round, lockout.get answers "
                                                 "locked with cause null",
    "commission-accumulated-across-seats": "the Banker commission of one winning Banker wager is added to the "
                                           "next one's",
    "combinations-indexed-by-king": "a seat's personal combination is looked up by its king: seats 5-7 get the "
                                    "combination of seats 1-3",
    "lose-payout-omits-paid-by": "a losing base-game wager's payout event has no paid_by field",
    "banker-7-draws-on-third-6-or-7": "a banker's 7 draws when the player's third card is a 6 or a 7 (must stand)",
    "reset-key-books-every-pending": "the reset key books every pending payment into the payout meters, not its "
                                     "meter's",
    "reset-key-checks-any-pending": "the reset key of a meter with nothing pending is taken while another meter's "
                                    "payment waits",
    "key-reset-meter-not-saved": "the meter reset by the reset key is not written to non-volatile storage",
    "sub-cent-growth-not-saved": "a meter's residual is saved only when its whole cents change ($1 table: major, "
                                 "minor)",
    "misread-close-skips-contribution": "wagering closed by a misread first card books no contribution",
    "pending-seat-lost-at-power-up": "after a power cycle every pending payment names seat 1",
    "meter-keys-checked-in-request-order": "a meter write is checked key by key in the order sent, not as a whole",
    "game-write-ignored": "config.set of game is answered with the configuration (ignored), not BAD_ARGS",
    "meter-floors-from-old-denomination": "a meter write sent with a denomination write is held to the floors of "
                                          "the denomination before it",
    "one-dollar-minor-floor-typo": "the $1 floor of the minor meter is $900, not $90",
    "power-lockout-sent-before-seq-restart": "after power-up each line's first event carries the numbering from "
                                             "before the power cut; the next is 1",
    "duplicate-key-accepted": "a request payload with a duplicate key is executed (the last value), not BAD_FRAME",
    "frame-version-ignored": "a frame with VER other than 1 and a good CRC is executed, not NAK VERSION",
    "pipelined-second-request-dropped": "of two requests that arrive in one read only the first is answered",
    "stalled-partial-frame-kept": "a partial frame that receives no byte is never abandoned: the line stalls",
    "answer-seq-15-bits": "answers carry the request's SEQ in 15 bits: SEQ 40000 is answered as 7232",
    "diverted-from-growth": "a contribution that crosses a cap diverts its whole cents, not only those past the cap",
}

# The fourteenth set (FAULTS14.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET14 = {
    "shoe-status-count-refreshed-by-card": "after the shoe is loaded again shoe.status gives the last shoe's "
                                           "cards_dealt until the first card out",
    "natural-tested-before-mod-10": "the natural test reads the two cards' sum before modulo 10: a 5 and a 6 "
                                    "stop the deal",
    "banker-third-card-added-to-player": "when the player stands and the banker draws, the fifth card is counted "
                                         "in the player's hand",
    "wager-list-lists-each-placement": "wager.list lists a wager placed again once per placement (old amounts too)",
    "wager-list-capped-at-ten": "wager.list answers the first ten wagers on the layout only",
    "closed-remove-answered-removed-false": "wager.remove with wagering closed answers removed false, not NAK "
                                            "REFUSED",
    "link-restore-resend-adds-stakes": "the sensors link back in a round doubles every wager on the layout (the "
                                       "resync adds the counts)",
    "button-press-latched-into-next-round": "the lock-out button pressed between rounds closes wagering again at "
                                            "the next round.open",
    "nmb-refused-after-button": "round.no_more_bets after the lock-out button in an open round is REFUSED",
    "lockout-late-after-refused-wager": "in a round where a wager was refused the lock-out on the first card is "
                                        "3 ms late",
    "refused-settle-leaves-void-flag": "a round.settle REFUSED mid-deal makes the round's round_end say void true",
    "void-lock-cause-not-stored": "after a void of an open round lockout.get answers locked with cause null",
    "round-cards-kept-across-power-cut": "the cards out of a round lost to a power cut are kept in the next "
                                         "round's tableau",
    "envy-checks-lower-seats-only": "mega envy is paid only for the combination of a seat below the wager's seat",
    "first-round-after-power-contributes-nothing": "after a power cycle the first closing of wagering books no "
                                                   "contribution",
    "meter-write-applies-first-meter-only": "a meter write naming two meters applies the first one only",
    "limit-held-to-round-start-amount": "a payout limit written is held to the meter's amount at the last "
                                        "round.open, not its current one",
    "payout-limit-stored-in-24-bits": "a payout limit written is kept in 24 bits: 20000000 becomes 3222784",
    "meter-initial-restored-from-reset": "after a power cycle each meter's initial amount is its reset amount",
    "reset-key-pops-first-pending": "the reset key clears the first pending payment, whatever meter it is for",
    "cumulative-paid-omits-mega": "the reset key of the mega books paid_by_attendant but not cumulative_paid",
    "refused-key-sends-reset-event": "a reset key REFUSED (nothing to reset) still sends a reset event",
    "reset-key-resends-hit": "the reset key sends the hit event of the payment it clears again",
    "residual-shown-to-two-decimals": "meters.get gives each residual rounded to two decimals of a cent",
    "denomination-write-kept-in-dollars": "a denomination written is answered in whole dollars (100 cents as 1)",
    "controller-location-nul-padded": "the controller's identity location is padded with NULs to 16 characters",
    "comm-lost-cause-not-stored-when-locked": "a sensors link loss with wagering already closed sends its event but "
                                              "lockout.get keeps the old cause",
    "bad-crc-nak-carries-header-seq": "a BAD_CRC NAK carries the SEQ of the frame's header, not 0",
    "oversized-frame-accepted": "a frame whose header announces more than 4096 bytes is read and executed",
    "bad-crc-drops-whole-frame": "a frame failing its CRC is dropped whole, a frame beginning inside it with it",
    "frame-type-high-bits-ignored": "a frame TYPE is read from its low four bits: TYPE 0x11 is executed as a REQ",
    "wager-list-slow-after-settlement": "the first wager.list after a settlement answers after 150 ms",
    "counter-timeout-read-as-ms": "the counter takes SYST:TIM in milliseconds: a 2 s timeout times out after 2 ms",
    "counter-init-keeps-start-edge": "the counter's INIT keeps the start edge of the last measurement",
    "supply-opc-before-output-off": "the supply answers *OPC? before OUTP OFF has taken the output off (150 ms later)",
}

# The fifteenth set (FAULTS15.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET15 = {
    "card-event-swallowed-after-shoe-error": "after a shoe error event the next card out sends no card event (it is "
                                             "counted and locks)",
    "card-n-restarts-on-shoe-reconnect": "a host reconnecting to the shoe restarts the card events' n at 1; "
                                         "shoe.status counts on",
    "shoe-load-clears-round-cards": "a shoe loaded in the middle of a round clears the cards the round has had",
    "shoe-takes-lockout-press": "the shoe answers lockout.press (and closes wagering) instead of UNKNOWN_CMD",
    "shoe-serial-sent-as-number": "the shoe's identity gives its serial as the number 1, not a string",
    "wager-list-readded-wager-last": "a wager removed and placed again in the round is listed after the others, not "
                                     "in seat order",
    "royal9-refused-after-base-placed-again": "a Royal 9 wager at a seat whose base wager was placed again is "
                                              "refused no-base-wager",
    "sensors-hello-slow-after-reconnect": "a host reconnecting to the bet sensors has its first hello answered "
                                          "after 300 ms",
    "unlock-event-after-open-answer-after-void": "the round opened after a voided round sends its unlock event "
                                                 "40 ms after the answer",
    "reboot-round-number-from-cold-start": "after a controller reboot the round number is the one read at the last "
                                           "power-up",
    "open-blocked-after-key-following-power-cycle": "a payment pending across a power cycle keeps round.open "
                                                    "REFUSED after its reset key",
    "live-flag-kept-across-power-cut": "after a power cut in an open round configuration writes are REFUSED live "
                                       "until a round ends",
    "banker-draw-reads-player-total": "the banker's third-card rule reads the player's total instead of the "
                                      "player's third card",
    "zero-commission-charged-five": "a Banker commission written as 0 is charged as 5 % (0 read as unset)",
    "losing-tie-category-null": "a losing Tie wager's payout says category null, not lose",
    "envy-skips-two-suit-combinations": "mega envy is not paid for a personal combination of two suits (seats 5 to "
                                        "7's)",
    "jackpot-payouts-after-fixed-lines": "an attendant-paid jackpot's payout is sent after the later seats' Royal 9 "
                                         "payouts",
    "envy-hit-names-mega-meter": "a mega envy hit event says meter mega (the fixed line is paid from no meter)",
    "null-capacity-taken-as-full": "a meter whose display capacity is written null stops growing: every "
                                   "contribution is diverted",
    "cap-latched-after-limit-raised": "a meter that met its payout limit stays capped there after the limit is "
                                      "raised",
    "minor-capped-at-major-limit": "the minor meter is capped at the major's payout limit",
    "mega-reset-at-hit": "an attendant-paid mega resets at the hit (reset event) while its payment waits for the key",
    "second-pending-category-from-first": "the second payment pending from one round carries the first one's "
                                          "category",
    "seats-rewrite-drops-seventh-combination": "a write of the seats in force is taken but leaves seat 7 without its "
                                               "combination",
    "denomination-write-reloads-commission": "a denomination write puts the Banker commission back to 5 %",
    "floors-stay-one-dollar-after-write-back": "after the denomination is written to $1 and back to $5, meter "
                                               "writes are held to the $1 floors",
    "storage-write-protected-after-reboot": "after a controller reboot nothing reaches non-volatile storage until "
                                            "the next power-up",
    "config-get-slow-after-write": "the first config.get after a configuration write answers after 150 ms",
    "event-seq-follows-request-seq": "the controller numbers its next event on from the SEQ of the last request it "
                                     "answered",
    "integral-float-accepted": "a payload number with a decimal point and no fraction (1000.0) is taken, not "
                               "BAD_FRAME",
    "non-utf8-payload-accepted": "a payload that is not UTF-8 is read as Latin-1 and executed, not BAD_FRAME",
    "request-seq-65535-unanswered": "a request numbered 65535 is never answered",
    "frame-complete-one-byte-early": "a frame is taken as whole one byte early: one whose last byte comes late is "
                                     "NAK BAD_CRC and lost",
    "counter-fetch-unarmed-answers-timeout": "the counter answers FETC? with nothing armed 9.91E+37 instead of no "
                                             "answer",
    "supply-silent-while-output-off": "the supply answers no query (*OPC?, OUTP?) while its output is off",
}

# The sixteenth set (FAULTS16.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET16 = {
    "shoe-status-count-zeroed-at-power-up": "after a power cycle shoe.status counts cards_dealt from 0; the card "
                                            "events count on",
    "shoe-software-id-empty-after-reconnect": "after a host reconnects to the shoe its identity has software_id empty",
    "card-n-restarts-each-paced-deal": "a paced deal numbers its card events from 1 again, not from the shoe's load",
    "busy-nak-without-reason": "the shoe's NAK BUSY to a deal while dealing has no reason field",
    "wager-event-echoed-after-sensors-reconnect": "after a host reconnects to the bet sensors each wager.place also "
                                                  "sends a wager event",
    "nmb-refusal-latched-after-void": "after a round voided following no more bets, the next round's wagers are "
                                      "refused no-more-bets with wagering open",
    "nmb-event-round-zero-after-reboot": "after a controller reboot the no_more_bets event says round 0",
    "void-refused-in-first-round-after-reboot": "after a controller reboot round.settle with no card out is REFUSED "
                                                "(no void) until a round is dealt",
    "nmb-taken-for-round-lost-to-power": "after a power cut in an open round round.no_more_bets is answered with the "
                                         "lost round's number, not REFUSED",
    "banker-commission-skipped-past-fourth-seat": "a winning Banker wager at seats 5 to 7 is paid without commission",
    "push-returns-last-rounds-stake": "a wager pushed by a tie returns the seat's stake of the round before",
    "last-seat-payout-before-hit": "the last seat's fixed Royal 9 line sends its payout before its hit",
    "pending-seat-from-last-royal9-wager": "a pending payment names the last seat with a Royal 9 wager, not the "
                                           "winner's",
    "denomination-write-zeroes-residuals": "a denomination write sets every meter's residual to zero",
    "residuals-zeroed-by-reboot": "after a controller reboot the meters' residuals are zero",
    "payout-meters-swapped-by-reboot": "a controller reboot swaps paid_by_table and paid_by_attendant",
    "reset-key-zeroes-other-residuals": "the reset key of one meter sets the other meters' residuals to zero",
    "minor-initial-written-to-major-too": "a write of the minor's initial amount also writes the major's",
    "commission-dropped-beside-meter-write": "a commission written in one config.set with a meter write is dropped",
    "meter-limit-write-lost-at-power-up": "a payout limit written is back at the factory value after a power cycle",
    "commission-fraction-lost-at-power-up": "after a power cycle a commission written 4.5 reads 4",
    "denomination-locked-after-contribution": "once a Royal 9 wager has contributed, a denomination write is REFUSED "
                                              "until the next power-up",
    "reset-write-copies-to-initial": "a meter's reset amount written alone is also written as its initial amount",
    "answer-seq-zero-after-bad-crc": "the answer after a frame with a bad CRC carries SEQ 0, not its request's",
    "frame-after-garbage-dropped": "a frame preceded by garbage bytes in the same read is lost with them",
    "sof-split-across-reads-lost": "a frame whose two SOF bytes arrive in two reads is lost",
    "frame-len-4096-dropped": "a frame with a payload of exactly 4096 bytes is dropped as oversized",
    "controller-hello-protocol-2-after-reconnect": "after a host reconnects to the controller hello version 1 is "
                                                   "answered protocol 2",
    "meters-get-slow-after-reboot": "the first meters.get after a controller reboot answers after 150 ms",
    "counter-level-rewrite-taken-as-edge": "the counter takes a lock-out level written again (high to high) as a "
                                           "stop edge",
    "counter-opc-waits-for-measurement": "the counter answers *OPC? after INIT only once the measurement ends or "
                                         "times out",
    "supply-voltage-setting-lost-on-output-off": "OUTP OFF puts the supply's voltage setting back to 12.000",
    "supply-outp-query-one-behind": "the supply's OUTP? answers the setting before the last one once after a change",
    "zero-rate-stops-every-meter": "a meter's rate written 0 stops the contributions to every meter",
    "pending-amount-reset-after-reboot": "after a controller reboot each pending payment's amount is its meter's reset "
                                         "amount",
}

# The seventeenth set (FAULTS17.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET17 = {
    "card-out-line-off-after-shoe-reboot": "after the shoe's reboot its cards are read and reported but not signalled "
                                           "out to the controller",
    "shoe-error-sent-as-nak": "a shoe fault is reported as a NAK with SEQ 0 instead of an error event",
    "instant-deal-answer-before-cards": "a deal at once is answered before its card events are sent",
    "burn-card-kept-in-next-hand": "a card dealt with no round open becomes the first card of the next round's hand",
    "sensors-hello-role-shoe-after-reboot": "after the sensors' reboot hello answers role shoe",
    "sensors-seat-7-refused-after-reboot": "after the sensors' reboot a wager at seat 7 is refused bad-seat",
    "accepted-answer-carries-last-refusal-reason": "an accepted wager is answered with the reason of the round's last "
                                                   "refusal",
    "sensors-gate-closed-after-reconnect": "after a host reconnects to the bet sensors wagers are refused locked-out "
                                           "until the next round.open",
    "base-flag-kept-after-removal": "a Royal 9 wager is accepted at a seat whose base wager was removed",
    "replaced-wager-cannot-be-removed": "a wager placed again cannot be removed: NAK REFUSED no such wager",
    "refused-open-sends-unlock": "a refused round.open sends the unlock event (locked false, round-open)",
    "reset-key-steps-round-number": "the reset key steps the round number: the next round.open skips one",
    "two-naturals-settled-as-tie": "a natural against a natural is settled as a tie whatever the point counts",
    "tie-win-sends-hit": "a winning Tie wager sends a hit event of category win before its payout",
    "commission-product-overflows-16-bits": "the Banker commission is computed in 16 bits: wrong for stakes above "
                                            "$131.07",
    "contribution-from-meter-before-key": "the first contribution after a reset key adds to the amount the meter "
                                          "showed before the key",
    "lost-round-contributions-booked-again": "after a power cut in a round whose wagers had contributed, the "
                                             "contributions are booked again at power-up",
    "mystery-key-answered-without-mystery": "the reset key of the mystery meter, which the table does not have, is "
                                            "answered and sends a reset event",
    "key-refusal-sent-as-rsp": "a refused reset key is answered RSP with ok false instead of NAK REFUSED",
    "refused-denomination-moves-paytable": "a refused denomination write switches the paytable to that denomination",
    "refused-write-applied-by-next-write": "a configuration write refused while live is applied by the next write "
                                           "taken",
    "combos-read-back-as-strings-at-power-up": "after a power cycle the personal combinations are strings like KS9S "
                                               "and never match a hand",
    "controller-events-lost-after-reconnect": "after a host reconnects to the controller its events go to the closed "
                                              "first connection",
    "long-answer-cut-at-1024-bytes": "a frame longer than 1024 bytes is sent cut at 1024 bytes",
    "spaced-payload-refused": "a request whose JSON has whitespace between tokens is NAK BAD_FRAME",
    "partial-frame-abandoned-early": "a partial frame is abandoned after 50 ms of silence instead of 500 ms",
    "empty-payload-kills-line": "a frame with an empty payload stops the device's receive task: the line answers "
                                "nothing more",
    "oversized-header-flushes-buffer": "a header announcing more than 4096 bytes empties the receive buffer, the "
                                       "frame after it with it",
    "no-answer-requests-still-executed": "the no-answer line fault drops the answers; the requests are still executed",
    "requests-queued-through-reboot": "requests received during a reboot are executed and answered once it is back",
    "event-frames-ver-0-after-reboot": "after a controller reboot its event frames carry VER 0",
    "counter-start-retriggered-by-each-card": "the counter's start is taken again by each card edge before the stop",
    "counter-conf-sets-stop-slope-negative": "CONF:TINT sets the counter's stop slope negative, not positive",
    "counter-stop-armed-before-start": "the counter takes a stop edge that comes before the start edge",
    "supply-on-ignored-after-power-loss-fault": "after a power-loss line fault the supply ignores OUTP ON (its own "
                                                "setting says on)",
}

# The eighteenth set (FAULTS18.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET18 = {
    "misread-card-out-pulsed-twice": "a misread card is pulled back and out again by the reader's retry: the "
                                     "controller counts it as two cards",
    "last-card-in-shoe-misread": "the shoe's last card is reported as misread (the empty-shoe sensor closes the "
                                 "reader's window)",
    "shoe-event-seq-one-byte": "the shoe numbers its events in one byte: after SEQ 255 comes 1",
    "shoe-reboot-resets-controller": "the shoe's reboot restarts the controller too: the open round and the layout "
                                     "are lost",
    "sensors-link-flag-down-until-first-open": "after power-up wagers are refused comm-lost (not locked-out) until "
                                               "the first round.open",
    "refused-remove-drops-listing": "a wager.remove refused after wagering closed takes the wager off wager.list; it "
                                    "is still settled",
    "remove-taken-offline-while-link-down": "with the sensors link down wager.remove is taken: the wager leaves the "
                                            "layout after wagering closed",
    "odd-cents-base-wager-refused": "a base wager that is not a whole number of dollars is refused bad-amount",
    "sensors-list-cleared-by-reconnect": "after a host reconnects to the bet sensors wager.list leaves out the "
                                         "wagers placed before",
    "void-round-end-before-lockout": "voiding an open round sends round_end before the lockout that closed wagering",
    "empty-round-ends-without-round-end": "a round dealt and settled with no wager on the layout sends no round_end",
    "nmb-refused-with-empty-layout": "round.no_more_bets in an open round with no wager on the layout is REFUSED",
    "comm-loss-noticed-after-800-ms": "a cut sensors link closes wagering (lockout comm-lost) about 800 ms after "
                                      "the cut",
    "comm-lost-event-on-sensors-line": "the comm-lost lockout event is sent on the bet sensors' line, not the "
                                       "controller's",
    "round-number-kept-in-bcd": "the round counter steps in BCD: the round after 9 is answered 16",
    "tie-check-reads-two-card-points": "the tie test compares the two-card point counts: equal final points after "
                                       "a third card are not a tie",
    "second-jackpot-of-meter-not-pending": "a meter's jackpot after its first jackpot was keyed is paid but never "
                                           "pending",
    "void-leaves-contribution-list": "a voided round's Royal 9 wagers contribute again when the next round's "
                                     "wagering closes",
    "limit-write-clears-diverted": "a payout limit write sets the meter's diverted count back to zero",
    "null-limit-reloaded-as-zero": "a payout limit or display capacity written null reads 0 after a power cycle",
    "rates-reloaded-as-numbers": "after a power cycle the rates are JSON numbers with a fraction (1.25), not "
                                 "decimal strings",
    "decks-write-taken-at-initial-amounts": "a decks write is taken while every meter shows its initial amount",
    "denomination-write-rescales-rates": "a denomination write scales every rate by the old denomination over the "
                                         "new one",
    "hello-answers-own-version-unoffered": "hello is answered with protocol 1 whatever versions it offers",
    "bad-crc-count-skips-events": "the bad-crc line fault corrupts the events sent meanwhile without counting "
                                  "them",
    "crc-check-covers-255-bytes": "a request whose payload is 256 bytes or longer fails the CRC check (one-byte "
                                  "loop count)",
    "pipelined-answers-carry-last-seq": "requests that arrive in one read are all answered with the SEQ of the "
                                        "last one",
    "array-payload-unanswered": "a payload that is a JSON array (not an object) is dropped without an answer",
    "nan-constant-accepted": "a payload with NaN or Infinity is executed, not NAK BAD_FRAME",
    "trailing-bytes-after-object-ignored": "bytes after the payload's JSON object are ignored and the request is "
                                           "executed",
    "nak-crc-over-payload-only": "NAK frames carry a CRC over the payload alone (not VER through LEN)",
    "counter-start-at-init": "the counter's interval runs from INIT, not from the first card-out edge",
    "counter-timeout-answers-last-interval": "a counter measurement that times out answers the last interval "
                                             "measured, not 9.91E+37",
    "supply-volt-query-reads-output": "the supply's VOLT? answers the output voltage (0.000 while off), not the "
                                      "setting",
    "supply-on-while-on-cycles-output": "OUTP ON with the output already on drops the output for 50 ms (the "
                                        "table restarts)",
}

# The nineteenth set (FAULTS19.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET19 = {
    "misread-restarts-card-n": "after a misread the reader's recovery restarts its card count: the next card event "
                               "says n 1",
    "burst-card-events-newest-first": "a deal at once sends its card events newest first (the reader's ring is read "
                                      "as a stack)",
    "same-amount-placed-again-refused": "a wager placed again at the amount it already has is refused bad-amount",
    "wager-list-seat-amount-from-first-area": "wager.list gives every wager at a seat the amount of the seat's first "
                                              "wager",
    "remove-index-one-seat-low": "wager.remove at a seat takes off the wager of that type at the seat before it",
    "sensors-reconnect-forgets-base-flags": "after a host reconnects to the bet sensors a Royal 9 wager beside a base "
                                            "wager placed before is refused no-base-wager",
    "card-relocks-after-button": "after the lock-out button the round's first card sends a second lockout event, "
                                 "cause card",
    "lock-line-held-after-void": "after a voided round round.open does not lower the lock-out line: the counter sees "
                                 "no lock-out edge",
    "void-refused-with-wagers-on-layout": "round.settle with no card out is REFUSED while a wager is on the layout",
    "nmb-refused-in-second-round": "round.no_more_bets is taken in the first round after power-up only, REFUSED "
                                   "after",
    "banker-six-pays-half": "a Banker wager that wins with a 6 is paid 1 to 2 without commission",
    "tie-wager-wins-only-on-two-card-tie": "a Tie wager loses a tie reached with a third card",
    "replaced-base-wager-settled-at-sum": "a base wager placed again is settled at the sum of its placements",
    "suited-check-compares-colour": "a Royal 9 of two cards of one colour (JH 9D) is paid as a suited Royal 9",
    "commission-write-takes-effect-round-late": "a commission write is used from the second settlement after it",
    "contribution-walk-stops-at-empty-seat": "the contribution stops at the first seat without a Royal 9 wager after "
                                             "one with it",
    "meters-get-refreshed-at-settlement": "meters.get shows the round-start meters from wagering close until the "
                                          "settlement",
    "meters-get-adds-diverted-to-meter": "meters.get reports a capped meter's amount plus its diverted cents",
    "key-after-reboot-books-payment-twice": "after a controller reboot the reset key books the payment twice",
    "attendant-meter-kept-in-dollars": "the reset key books paid_by_attendant in whole dollars, not cents",
    "open-refused-once-after-key": "the first round.open after a reset key is REFUSED (payment waits)",
    "written-rate-kept-as-display-text": "a written rate is answered with a percent sign (\"0.4%\")",
    "config-write-taken-mid-deal": "a configuration write is taken while a round with no wager is being dealt",
    "combos-loaded-one-seat-on-after-power-cycle": "after a power cycle each seat has the next seat's personal "
                                                   "combination",
    "controller-serial-crlf-after-power-cycle": "after a power cycle the controller's serial ends in a CR LF",
    "hello-refusal-latched": "after a hello NAK VERSION every later hello on that line is NAK VERSION",
    "reboot-loads-round-open-checkpoint": "a controller reboot in a round puts the meters back to the round's "
                                          "opening",
    "link-loss-mid-deal-voids-round": "losing the sensors link while a round is being dealt voids the round",
    "reconnect-announces-power-lockout": "a host reconnecting to the controller is sent a lockout event, cause power",
    "resync-waits-after-bad-crc": "the answer after a frame with a bad CRC comes 150 ms late",
    "long-answer-len-little-endian": "an answer longer than 255 bytes carries its LEN little-endian",
    "disconnect-drops-every-line": "the disconnect line fault of one device drops every device's line",
    "counter-fetch-clears-result": "the counter's second FETC? after a measurement answers 9.91E+37",
    "counter-timeout-inf-read-as-zero": "the counter reads SYST:TIM INF as 0: every measurement times out",
    "supply-opc-reads-output-ready": "the supply answers *OPC? 0 while its output is off",
}

# The twentieth set (FAULTS20.md): written from the documents alone, before any run against the suites or explorer.
FAULTS_SET20 = {
    "refused-load-empties-shoe": "a test.load refused BAD_ARGS by its deck check leaves the shoe empty, its count "
                                 "at 0",
    "busy-deal-still-queued": "a test.deal answered NAK BUSY is still dealt once the running deal ends",
    "paced-card-event-queued-behind-count": "in a paced deal a card is counted by shoe.status 100 ms before its card "
                                            "event is sent",
    "deal-count-zero-deals-whole-shoe": "test.deal with count 0 deals every card in the shoe (0 read as the default)",
    "shoe-reboot-keeps-event-seq": "after the shoe's reboot its event SEQ runs on instead of starting at 1",
    "seat-holds-three-areas": "a fourth wager type at a seat takes the place of the seat's first wager",
    "seat-8-accepted-after-config-write": "after a configuration write a wager at seat 8 (a seat the table does not "
                                          "have) is accepted",
    "final-flag-kept-after-void": "after a voided round wager.remove is REFUSED (wagering is closed) until a round is "
                                  "settled",
    "refused-royal9-clears-base-flag": "a Royal 9 wager refused bad-amount makes the next Royal 9 wager at the seat be "
                                       "refused no-base-wager",
    "refused-wager-replayed-at-round-open": "a wager refused locked-out with no round open is put on the layout by the "
                                            "next round.open",
    "key-clears-lock-flag": "after the reset key lockout.get answers unlocked (cause null) while no round is open",
    "first-unlock-after-power-cause-power": "the first round.open after power-up sends its unlock with cause power",
    "misread-card-left-out-of-tableau": "a misread card is not one of the round's cards: the round waits for one card "
                                        "more",
    "identical-royal9-pair-tie-unpaid": "a Royal 9 tie hand of the same two cards on both hands (QS 9S v. QS 9S) is "
                                        "not paid",
    "losing-base-payout-stake-zero": "a losing base-game wager's payout says stake 0",
    "third-card-ten-read-as-player-stood": "a player's third card worth 0 is read as no third card: a banker's 4 or 5 "
                                           "draws",
    "attendant-mode-left-on-after-key": "after a reset key every Royal 9 fixed line's payout says paid_by attendant",
    "contribution-list-rebuilt-on-first-royal9": "a round with no Royal 9 wager contributes the last round's Royal 9 "
                                                 "wagers again",
    "limit-raise-pours-diverted-back": "raising a payout limit moves the meter's diverted cents back onto the meter",
    "key-rounds-residual-into-meter": "the reset key rounds the meter's residual into it: reset amount plus one cent "
                                      "from half a cent",
    "pending-read-as-new-slips-only": "meters.get lists only the payments added since the last meters.get",
    "key-books-growth-over-reset": "the reset key books the meter's growth over its reset amount, not the amount paid",
    "settings-ring-wrap-loads-older-write": "after nine configuration writes a power cycle brings back the eighth",
    "refused-denomination-clears-floor-check": "after a denomination write refused (no paytable) meter writes are not "
                                               "held to any floor",
    "game-type-from-paytable-after-denomination-write": "after a denomination write the controller's game_type names "
                                                        "the paytable (midibaccarat-r9-1)",
    "version-refusal-reason-names-offer": "a hello refused NAK VERSION names the version offered, not the one spoken",
    "nested-float-accepted": "a number with a decimal point inside a nested object (50000.0) is taken, not BAD_FRAME",
    "len-counts-characters-not-bytes": "an answer whose payload has a non-ASCII character carries a LEN counted in "
                                       "characters",
    "garbage-steps-event-seq": "the garbage line fault's noise steps the event SEQ: the next event skips a number",
    "power-loss-duration-ignored": "the power-loss line fault's duration_ms is ignored: the table stays dark until "
                                   "OUTP ON",
    "receive-buffer-kept-across-reconnect": "a partial frame left by a closed connection is joined to the next "
                                            "connection's bytes (NAK BAD_CRC)",
    "counter-fetch-in-milliseconds": "the counter's FETC? answers the interval in milliseconds, not seconds",
    "counter-fetch-waits-only-after-start": "a FETC? sent before the start edge answers 9.91E+37 at once",
    "counter-timeout-timer-started-by-conf": "the counter's measurement timeout runs from CONF or SYST:TIM, not from "
                                             "INIT",
    "supply-on-ignored-within-restart-delay": "OUTP ON within 300 ms of OUTP OFF is ignored: the output stays off",
}

ALL_FAULTS = {**FAULTS, **FAULTS_SET2, **FAULTS_SET3, **FAULTS_SET4, **FAULTS_SET5, **FAULTS_SET6, **FAULTS_SET7,
              **FAULTS_SET8, **FAULTS_SET9, **FAULTS_SET10, **FAULTS_SET11,
              **FAULTS_SET12, **FAULTS_SET13, **FAULTS_SET14, **FAULTS_SET15, **FAULTS_SET16,
              **FAULTS_SET17, **FAULTS_SET18, **FAULTS_SET19,
              **FAULTS_SET20}
