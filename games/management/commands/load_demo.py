"""Load a small demo: a GM, six players, the operator, the lobby, and a finished demo game
board with posts.

The demo GM (gm@example.com) is staff only, as every real GM is: it sees what a host sees
(its games, their consoles and records), never the superuser's debugging data. The operator
(admin@example.com) is the superuser: the whole admin, every game's records and the stored
data beside them; it runs no game. (Earlier demos made the GM a superuser: loading the demo
again makes it staff only.)

Idempotent: running it twice changes nothing the second time.
"""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import Profile, messenger_user
from games.models import Game
from messaging import services as forum
from messaging.models import Board, Thread

DEMO_PASSWORD = "demo-password-1"
OPERATOR_EMAIL = "admin@example.com"  # the superuser (README names it)
PLAYERS = ["阿猫", "阿狗", "小白", "老黑", "花花", "石头"]

DEMO_POSTS = [
    ("announcement", "《游戏者名单》第一局·演示", [
        (None, "游戏开始。五名游戏者已就位，丢牌顺序请在 24 小时内寄给神的使者。"),
    ]),
    ("discussion", "第一天讨论", [
        ("阿猫", "昨夜**阿狗**丢了一张中立牌，我觉得攻击者在试探。"),
        ("阿狗", "> 我觉得攻击者在试探\n\n同意，但我更怀疑小白。"),
        ("小白", "我是清白的，投票帖见。"),
    ]),
    ("story", "剧情：雨夜的猫", [
        (None, "雨夜，九条命的猫坐在屋顶上，数着还剩几条命……"),
    ]),
    ("announcement", "游戏结束：平民阵营获胜", [
        (None, "杀手与狼人全灭，平民阵营获胜。感谢各位参与！复盘见本版。"),
    ]),
]


class Command(BaseCommand):
    help = "Load the demo data (idempotent)."

    @transaction.atomic
    def handle(self, *args, **options):
        User = get_user_model()
        messenger_user()

        def account(email, name, *, staff=False, superuser=False):
            user, created = User.objects.get_or_create(
                username=email.split("@")[0], defaults={"email": email, "is_staff": staff,
                                                        "is_superuser": superuser})
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
                EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
                Profile.objects.create(user=user, display_name=name)
            return user

        gm = account("gm@example.com", "演示天神", staff=True)
        if gm.is_superuser:  # an earlier demo's GM
            gm.is_superuser = False
            gm.save(update_fields=["is_superuser"])
        account(OPERATOR_EMAIL, "演示站长", staff=True, superuser=True)
        players = {name: account(f"player{i}@example.com", name)
                   for i, name in enumerate(PLAYERS, start=1)}
        lobby = forum.lobby_board()
        if not Thread.objects.filter(board=lobby).exists():
            forum.start_thread(board=lobby, author=gm, kind="announcement",
                               title="欢迎来到杀人游戏", body="在这里报名、讨论、围观。\n\n"
                               "新手请先阅读 **猫有n条命** 规则。", enforce_rate_limit=False)
        if Board.objects.filter(slug="demo-game-1").exists():
            self.stdout.write("Demo already loaded.")
            return
        board = forum.create_board(slug="demo-game-1", title="演示局：猫有n条命（已结束）")
        Game.objects.create(name="演示局：猫有n条命", ruleset="ninelives", status="finished",
                            board=board, gm=gm)
        for kind, title, posts in DEMO_POSTS:
            first_author = players.get(posts[0][0], gm)
            thread = forum.start_thread(board=board, author=first_author, kind=kind,
                                        title=title, body=posts[0][1], enforce_rate_limit=False)
            for who, body in posts[1:]:
                forum.reply(thread=thread, author=players.get(who, gm), body=body,
                            enforce_rate_limit=False)
        self.stdout.write(self.style.SUCCESS(
            f"Demo loaded: gm@example.com (the GM, staff), player1..6@example.com and "
            f"{OPERATOR_EMAIL} (the operator, superuser), password {DEMO_PASSWORD}"))
