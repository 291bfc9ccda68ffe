# rotate.sh: sourced by guest scripts (/vb/guest/rotate.sh in the guest).
#
# rotate I WORD...: the words, one per line, starting at word (I mod n) + 1
# and wrapping around, so that pass I of a schedule starts one word later
# than pass I-1 and no word always runs first (a drift within a boot then
# does not line up with one kind of step).
rotate() {
	_i=$1
	shift
	_n=$#
	_j=0
	while [ "$_j" -lt "$_n" ]; do
		eval "echo \"\${$(( (_i + _j) % _n + 1 ))}\""
		_j=$((_j + 1))
	done
}
