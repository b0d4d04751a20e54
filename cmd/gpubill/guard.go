package main

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/adrg/xdg"
	"github.com/spf13/cobra"

	"github.com/gpubill/gpubill/billing"
	"github.com/gpubill/gpubill/guard"
	"github.com/gpubill/gpubill/platform"
)

type guardOptions struct {
	idle, max, interval, grace time.Duration
	then, exec, process        string
	marker, provider, instance string
	nvidiaSMI                  string
	pid, idleBelow             int
}

func (a *app) guardCommand() *cobra.Command {
	var o guardOptions
	cmd := &cobra.Command{
		Use:   "guard --idle 30m --max 8h [--then CMD]",
		Short: "Run on the rented machine: warn, then shut down, when the GPUs idle or time is up / 在租用的机器上运行：GPU 空闲或到时后提醒并关机",
		Long: `Run on the rented machine itself (AutoDL, 恒源云, 矩池云, GpuGeek … have no public instance API,
but a program can run there). Every --interval it samples the GPUs with the nvidia-smi found on
PATH (nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits); a GPU at or below
--idle-below percent is idle. It warns when every GPU has been idle for --idle, or when --max has
passed since it started; a sample that fails counts as busy. While --pid or --process runs, the
machine is not idle, whatever the GPUs show.

A warning goes to the log (stderr), to --exec and to the config's [[notify]] robots and e-mail,
as gpubill watch sends them. Without --then it only warns (past --max it then ends). With --then
it runs the command (sh -c) once --grace is over and the condition still holds: GPUs that work
again during the grace period call the shutdown off. Each event (start, warn, cancel, shutdown,
done, failed) is appended as one JSON line to --marker, written before the command runs;
gpubill audit --guard MARKER later claims billing that went on after the shutdown (name the
bill's instance with --instance, or the session is found by platform and time).

在租用的机器上运行：每隔 --interval 用 PATH 中的 nvidia-smi 采样 GPU 利用率；全部 GPU 空闲满 --idle，
或自启动起满 --max 时提醒；设置 --then 时在 --grace 宽限期后执行关机命令（宽限期内 GPU 重新工作则取消）；
未设置 --then 时只提醒。每个事件写入 --marker 标记文件（JSON 行）。`,
		Example: `  python train.py; gpubill guard --idle 10m --grace 2m --then 'shutdown -h now'
  gpubill guard --idle 30m --max 8h --process python --then 'shutdown -h now' &
  gpubill guard --max 4h --exec 'jq -r .message_zh | mail -s gpubill me@example.com'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.runGuard(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.DurationVar(&o.idle, "idle", 30*time.Minute, "warn when every GPU has been idle this long (0: never)")
	f.DurationVar(&o.max, "max", 0, "warn when this long has passed since the guard started (0: no maximum)")
	f.DurationVar(&o.interval, "interval", 30*time.Second, "sample the GPUs every DURATION")
	f.DurationVar(&o.grace, "grace", 5*time.Minute, "time between the warning and --then")
	f.StringVar(&o.then, "then", "", "shutdown command (sh -c) run after the grace period; default: only warn")
	f.IntVar(&o.idleBelow, "idle-below", 5, "a GPU at or below this utilisation (percent) is idle")
	f.IntVar(&o.pid, "pid", 0, "while this process runs, the machine is not idle")
	f.StringVar(&o.process, "process", "", "while a process of this name (as ps -o comm shows it) runs, the machine is not idle")
	f.StringVar(&o.exec, "exec", "", "run CMD (sh -c) for each warning, the alert as JSON on its stdin")
	f.StringVar(&o.marker, "marker", "", "append each event as JSON to FILE (default $XDG_STATE_HOME/gpubill/guard.jsonl; - for none)")
	f.StringVar(&o.provider, "provider", "", "the platform this machine is rented on (autodl, gpushare …), for messages")
	f.StringVar(&o.instance, "instance", "", "the platform's ID of this instance, as its bill names it (written to the marker, so that audit --guard finds its session)")
	f.StringVar(&o.nvidiaSMI, "nvidia-smi", "nvidia-smi", "the nvidia-smi command")
	return cmd
}

func (a *app) runGuard(ctx context.Context, o guardOptions) error {
	if o.interval < 10*time.Millisecond || o.idle < 0 || o.max < 0 || o.grace < 0 {
		return a.fetchUsage("--interval 需为正，--idle、--max、--grace 不能为负", "--interval must be positive; --idle, --max and --grace cannot be negative")
	}
	if o.idleBelow < 0 || o.idleBelow > 100 {
		return a.fetchUsage("--idle-below 需在 0 到 100 之间", "--idle-below must be between 0 and 100")
	}
	if o.provider != "" && platform.Rank(o.provider) >= len(platform.All) {
		return a.fetchUsage("--provider %q 不是已知平台", "--provider %q is not a known platform", o.provider)
	}
	ns, err := a.notifiers(o.exec)
	if err != nil {
		return err
	}
	marker := o.marker
	switch marker {
	case "":
		marker = filepath.Join(xdg.StateHome, "gpubill", "guard.jsonl")
	case "-":
		marker = ""
	}
	lang := a.lang
	if lang != "zh" {
		lang = "en"
	}
	if p, ok := billing.DefaultPolicy(o.provider); ok && o.then == "" && p.Stop != nil {
		a.say("提示：%s 文档中的停机方式：%s（%s，%s）", "note: %s documents this way to stop: %s (%s, seen %s)",
			platform.Name(o.provider, lang), p.Stop.Command, p.Stop.Source, p.Stop.Seen)
	}
	_, err = guard.Run(ctx, guard.Options{Idle: o.idle, Max: o.max, Interval: o.interval, Grace: o.grace, Then: o.then,
		PID: o.pid, Process: o.process, IdleBelow: o.idleBelow, NvidiaSMI: o.nvidiaSMI, Notifiers: ns, Marker: marker,
		Log: a.stderr, Lang: lang, Provider: o.provider, Instance: o.instance})
	var ge *guard.Error
	if errors.As(err, &ge) {
		return errors.New(ge.Text(lang))
	}
	return err
}
