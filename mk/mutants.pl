#!/usr/bin/perl
# mk/mutants.pl — make mutants: does `make test` notice when the model is wrong?
#
# Applies each mutation of mk/mutants.txt on its own (a small, plausible mistake in
# the model code: a forgotten 1 + w, adjacent RoPE pairs, the delta rule's read
# before its write, ...), runs the whole test suite in build-mutants/ (FAIL_FAST:
# the first failing test is enough), puts the file back, and ends with one line
# per mutation and the score. A mutation that no test catches is a missing test.
# Exit status: 0 when every mutation is caught.
#
#   make mutants                       all of them
#   perl mk/mutants.pl NAME-FRAGMENT   only those whose name contains it
#   perl mk/mutants.pl --check         only check that every mutation still applies
use strict;
use warnings;

my $only = shift // '';
my $check_only = $only eq '--check';
$only = '' if $check_only;
open my $in, '<', 'mk/mutants.txt' or die "mk/mutants.txt: $!\n";
my (@mutants, $cur);
while (my $line = <$in>) {
    chomp $line;
    next if $line =~ /^#(?!#)/ || $line =~ /^\s*$/;
    if ($line =~ /^## (.+)/) {
        $cur = { name => $1, from => [], to => [] };
        push @mutants, $cur;
    } elsif ($line =~ /^file: (\S+)/) {
        $cur->{file} = $1;
    } elsif ($line =~ /^- (.*)/) {
        push @{ $cur->{from} }, $1;
    } elsif ($line =~ /^\+ (.*)/) {
        push @{ $cur->{to} }, $1;
    } else {
        die "mk/mutants.txt: cannot read the line '$line'\n";
    }
}
close $in;

sub slurp { my ($p) = @_; open my $f, '<', $p or die "$p: $!\n"; local $/; my $s = <$f>; close $f; return $s }
sub spit  { my ($p, $s) = @_; open my $f, '>', $p or die "$p: $!\n"; print $f $s; close $f }

my ($caught, $tried, @missed) = (0, 0);
$ENV{FAIL_FAST} = 1;
for my $m (@mutants) {
    next if $only ne '' && index($m->{name}, $only) < 0;
    my $orig = slurp($m->{file});
    # the lines as they are, whatever their indentation
    my $pattern = join('[ \t]*\n[ \t]*', map { quotemeta } @{ $m->{from} });
    my @hits = ($orig =~ /^([ \t]*)$pattern/mg);
    if (@hits != 1) {
        printf "ERROR   %s: its text occurs %d times in %s (mk/mutants.txt is out of date)\n", $m->{name},
            scalar @hits, $m->{file};
        push @missed, $m->{name};
        next;
    }
    next if $check_only;
    my $indent = $hits[0];
    my $replacement = join("\n", map { "$indent$_" } @{ $m->{to} });
    (my $mutated = $orig) =~ s/^[ \t]*$pattern/$replacement/m;
    spit($m->{file}, $mutated);
    $tried++;
    my $status = system('make --no-print-directory BUILD=build-mutants test > build-mutants.log 2>&1');
    spit($m->{file}, $orig);
    if ($status != 0) {
        my $log = slurp('build-mutants.log');
        my ($by) = $log =~ /-- FAILED \(exit \d+\): (\S+)/;
        $by //= $log =~ /error:/ ? 'the build' : 'make test';
        printf "caught  %s (by %s)\n", $m->{name}, $by;
        $caught++;
    } else {
        printf "MISSED  %s\n", $m->{name};
        push @missed, $m->{name};
    }
}
unlink 'build-mutants.log';
system('make --no-print-directory BUILD=build-mutants build-mutants/libqwen.a > /dev/null 2>&1'); # leave it unmutated
if ($check_only) {
    printf "%d mutations, %d out of date\n", scalar @mutants, scalar @missed;
    exit(@missed ? 1 : 0);
}
printf "\n%d of %d mutations caught%s\n", $caught, $tried, @missed ? '; not caught: ' . join('; ', @missed) : '';
exit(@missed ? 1 : 0);
