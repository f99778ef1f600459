#!/usr/bin/perl
# mk/readme_blocks.pl — the printed blocks of the READMEs, regenerated from the
# programs, so that a README cannot drift from what the demos print.
#
#   perl mk/readme_blocks.pl --check  [README ...]   fail when a block differs
#   perl mk/readme_blocks.pl --update [README ...]   rewrite every marked block
#
# Without README arguments: every README*.md of the repository (git ls-files).
#
# A marked block is a fenced block right after a marker line:
#
#   <!-- output: ./ch03_norm/ch03_norm --model $MID -->     (./ch07_toy: the root link
#                                                           or its chapter's program)
#   <!-- mask: 最大相差 (\S+) -->              (optional, one or more)
#   ```text
#   $ ./ch03_norm/ch03_norm --model build/mid
#   ...the program's stdout...
#   ```
#
# The command runs with sh from the repository root, stdin from /dev/null, its
# stderr set aside (shown only when it fails). It may use the checkpoints that
# `make test` builds:
#
#   $TINY              build/tiny   hidden size 64, four layers (the goldens' weights)
#   $MID               build/mid    the real layer widths, four layers, vocab 3001
#   $ZEROS             build/zeros  the real 0.8B shapes, every weight zero
#                                   (make_synthetic --size full --zeros: no disk space)
#   $QWEN3_TOKENIZER   .cache/tokenizer-qwen3-3.7.2/tokenizer.json, the real Qwen3
#                      tokenizer (fetched with npm); a block that uses it is skipped
#                      when it is not there
#
# The block starts with the command as a reader types it ("$ " and the command,
# each variable written as its path above), then the program's stdout with two
# changes, the masking rule:
#   1. a time or a speed, a number followed by ms, us, µs, s, tok/s, GB/s or MB/s,
#      becomes "…" ("读取 133 ms" -> "读取 … ms"): it differs from run to run;
#   2. what a mask line's regex matches (its capture groups, or the whole match
#      when it has none) becomes "…": for a number that is rounding noise and may
#      differ between machines.
# Trailing spaces are dropped. A program's own name for a folder it was given is
# written as the path above too, so build-san/ (make test-san) checks the same text.
#
# Environment: BUILD (default build), BINDIR (prefix of the programs, "" or
# "build-san/"), TINY, MID, ZEROS, QWEN3_TOKENIZER (override the folders).
use strict;
use warnings;
use utf8;
use Cwd qw(getcwd);

binmode STDOUT, ':encoding(UTF-8)';
binmode STDERR, ':encoding(UTF-8)';

my $mode = shift @ARGV // '';
if ($mode ne '--check' && $mode ne '--update') {
    print STDERR "usage: perl mk/readme_blocks.pl --check|--update [README.md ...]\n";
    exit 2;
}

my $root = getcwd();
-f "$root/Makefile" && -d "$root/common" or die "readme_blocks: run it from the repository root\n";

my $build  = $ENV{BUILD}  // 'build';
my $bindir = $ENV{BINDIR} // '';
# name -> [the folder used, the path the block shows]
my %vars = (
    TINY            => [$ENV{TINY}  // "$build/tiny",  'build/tiny'],
    MID             => [$ENV{MID}   // "$build/mid",   'build/mid'],
    ZEROS           => [$ENV{ZEROS} // "$build/zeros", 'build/zeros'],
    QWEN3_TOKENIZER => [$ENV{QWEN3_TOKENIZER} // '.cache/tokenizer-qwen3-3.7.2/tokenizer.json',
                        '.cache/tokenizer-qwen3-3.7.2/tokenizer.json'],
);
for my $v (values %vars) { $v->[0] =~ s{^\Q$root\E/}{}; }

my @files = @ARGV;
if (!@files) {
    @files = grep { m{(^|/)README[^/]*\.md$} } split /\n/, `git ls-files`;
    @files = sort @files;
}

my ($checked, $skipped, $updated, $failed) = (0, 0, 0, 0);
my %ran;

# The masking rule (see above).
sub mask_text {
    my ($text, $masks) = @_;
    $text =~ s/(?<![\w.])\d+(?:\.\d+)?(?=\s?(?:ms|us|µs|s|tok\/s|GB\/s|MB\/s)(?![\p{L}\d]))/…/g;
    for my $re (@$masks) {
        my $rx = qr/$re/;
        $text =~ s{$rx}{
            my $m = $&;
            if (@- > 1) {
                # replace each capture group inside the match, from the right
                my $start = $-[0];
                for (my $g = $#-; $g >= 1; $g--) {
                    next unless defined $-[$g];
                    substr($m, $-[$g] - $start, $+[$g] - $-[$g]) = '…';
                }
            } else {
                $m = '…';
            }
            $m;
        }ge;
    }
    $text =~ s/[ \t]+$//mg;
    return $text;
}

# Runs one marker's command; returns (ok, block text, why).
sub run_block {
    my ($cmd, $masks) = @_;
    my %env;
    for my $name (keys %vars) {
        next unless $cmd =~ /\$\{?\Q$name\E\b/;
        my $path = $vars{$name}[0];
        return (0, undef, "skip: \$$name ($path) is not there") unless -e $path;
        $env{$name} = $path;
    }
    my $shown = $cmd;
    $shown =~ s/\$\{?(\w+)\}?/exists $vars{$1} ? $vars{$1}[1] : "\$$1"/ge;
    my $run = $cmd;
    # the program itself: ./chNN_x/prog runs as ./${BINDIR}chNN_x/prog, and a demo
    # linked at the root by `make chNN` (./ch07_toy) as the one in its chapter folder,
    # which make test builds
    if ($run =~ m{^\./([\w./-]+)}) {
        my $p = $1;
        if ($p !~ m{/}) {
            my @in = grep { -x $_ } glob("ch[0-9][0-9]_*/$p");
            $p = $in[0] if @in == 1;
        }
        $run =~ s{^\./[\w./-]+}{./$bindir$p} if -x "$bindir$p";
    }
    local @ENV{keys %env} = values %env;
    my $err = "/tmp/readme_blocks.$$.err";
    my $pid = open(my $fh, '-|');
    die "readme_blocks: fork: $!\n" unless defined $pid;
    if ($pid == 0) {
        open STDIN, '<', '/dev/null';
        open STDERR, '>', $err;
        exec '/bin/sh', '-c', $run or exit 127;
    }
    binmode $fh, ':encoding(UTF-8)';
    my $out = do { local $/; <$fh> } // '';
    close $fh;
    my $rc = $? >> 8;
    my $stderr = '';
    if (open my $e, '<:encoding(UTF-8)', $err) { local $/; $stderr = <$e> // ''; close $e; }
    unlink $err;
    if ($rc != 0) {
        return (0, undef, "fail: '$run' exited with status $rc" .
                ($stderr ne '' ? "; its stderr:\n$stderr" : ''));
    }
    for my $name (keys %env) {
        my ($used, $show) = @{ $vars{$name} };
        $out =~ s{\Q$root/$used\E}{$show}g;
        $out =~ s{(?<![\w./-])\Q$used\E}{$show}g if $used ne $show;
    }
    $out .= "\n" if $out ne '' && $out !~ /\n\z/;
    return (1, mask_text("\$ $shown\n$out", $masks), '');
}

for my $file (@files) {
    open my $in, '<:encoding(UTF-8)', $file or die "readme_blocks: $file: $!\n";
    my @lines = <$in>;
    close $in;
    my @out;
    my $changed = 0;
    my $i = 0;
    while ($i < @lines) {
        my $line = $lines[$i];
        if ($line !~ /^<!-- output: (.+?) -->\s*$/) { push @out, $line; $i++; next; }
        my $cmd = $1;
        my $marker_line = $i + 1;
        push @out, $line;
        $i++;
        my @masks;
        while ($i < @lines && $lines[$i] =~ /^<!-- mask: (.+?) -->\s*$/) {
            push @masks, $1;
            push @out, $lines[$i];
            $i++;
        }
        if ($i >= @lines || $lines[$i] !~ /^(```+)/) {
            print "$file:$marker_line: the marker is not followed by a fenced block\n";
            $failed++;
            next;
        }
        my $fence = $1;
        push @out, $lines[$i];
        my $open_line = $i + 1;
        $i++;
        my $start = $i;
        $i++ while $i < @lines && $lines[$i] !~ /^\Q$fence\E\s*$/;
        if ($i >= @lines) {
            print "$file:$open_line: the fenced block never closes\n";
            $failed++;
            push @out, @lines[$start .. $#lines];
            last;
        }
        my @old = @lines[$start .. $i - 1];
        my $close = $lines[$i];
        $i++;
        # the Chinese and the English README show the same blocks: run each command once
        my $key = join "\0", $cmd, @masks;
        $ran{$key} //= [run_block($cmd, \@masks)];
        my ($ok, $new, $why) = @{ $ran{$key} };
        if (!$ok) {
            push @out, @old, $close;
            if ($why =~ /^skip: /) {
                print "$file:$marker_line: $why\n";
                $skipped++;
            } else {
                print "$file:$marker_line: $why\n";
                $failed++;
            }
            next;
        }
        my $old = join '', @old;
        if ($old eq $new) {
            $checked++;
        } elsif ($mode eq '--update') {
            $changed = 1;
            $updated++;
        } else {
            my @a = split /\n/, $old, -1;
            my @b = split /\n/, $new, -1;
            my $k = 0;
            $k++ while $k < @a && $k < @b && $a[$k] eq $b[$k];
            my $at = $start + 1 + $k;
            printf "%s:%d: the block after line %d no longer matches '%s'\n", $file, $at, $marker_line, $cmd;
            printf "  README:  %s\n", $k < @a ? $a[$k] : '(the block ends here)';
            printf "  program: %s\n", $k < @b ? $b[$k] : '(the output ends here)';
            $failed++;
        }
        push @out, ($mode eq '--update' ? $new : $old), $close;
    }
    if ($changed) {
        open my $o, '>:encoding(UTF-8)', $file or die "readme_blocks: $file: $!\n";
        print $o @out;
        close $o;
        print "updated $file\n";
    }
}

if ($mode eq '--update') {
    print "readme blocks: $updated updated, $checked unchanged, $skipped skipped, $failed failed\n";
} else {
    print "readme blocks: $checked match, $failed differ or fail, $skipped skipped\n";
    print "  (after a change to a program's output: perl mk/readme_blocks.pl --update)\n" if $failed;
}
exit($failed ? 1 : 0);
